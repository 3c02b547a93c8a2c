from memwarden.cli import main

raise SystemExit(main())
