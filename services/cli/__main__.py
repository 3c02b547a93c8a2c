from memwarden.services.cli import main

raise SystemExit(main())
