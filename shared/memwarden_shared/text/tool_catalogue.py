"""The catalogue of tools (database, framework, OS, shell, cloud) and their surface forms.

Data, no decisions. The extractor reads a tool preference from it
(``memwarden_extractor.tools``); the stance grammar reads a group's practice from it
("we use zsh": a tool of work, however it is cased), so both agree on what names a tool.
"""

from __future__ import annotations

# key -> canonical tool -> surface forms (folded); the first form is the canonical itself
TOOLS: dict[str, dict[str, tuple[str, ...]]] = {
    "preference.database": {
        "PostgreSQL": ("postgresql", "postgres", "psql"),
        "MySQL": ("mysql",),
        "MariaDB": ("mariadb",),
        "SQLite": ("sqlite", "sqlite3"),
        "MongoDB": ("mongodb", "mongo"),
        "Redis": ("redis",),
        "Oracle": ("oracle database", "oracle db", "oracle"),
        "SQL Server": ("sql server", "mssql"),
        "Cassandra": ("cassandra",),
        "DynamoDB": ("dynamodb",),
        "ClickHouse": ("clickhouse",),
        "CockroachDB": ("cockroachdb",),
        "Neo4j": ("neo4j",),
        "DuckDB": ("duckdb",),
        "TiDB": ("tidb",),
        "Supabase": ("supabase",),
        "Elasticsearch": ("elasticsearch",),
        "达梦": ("达梦",),
    },
    "preference.framework": {
        "Django": ("django",),
        "Flask": ("flask",),
        "FastAPI": ("fastapi",),
        "Spring Boot": ("spring boot", "springboot", "spring"),
        "Rails": ("ruby on rails", "rails"),
        "Laravel": ("laravel",),
        "Express": ("express.js", "expressjs", "express"),
        "NestJS": ("nestjs", "nest.js"),
        "Next.js": ("next.js", "nextjs"),
        "Nuxt": ("nuxt.js", "nuxtjs", "nuxt"),
        "React": ("react.js", "reactjs", "react"),
        "Vue": ("vue.js", "vuejs", "vue"),
        "Angular": ("angular",),
        "Svelte": ("sveltekit", "svelte"),
        "SolidJS": ("solidjs", "solid.js"),
        "Remix": ("remix",),
        "Astro": ("astro",),
        "Gin": ("gin",),
        "Phoenix": ("phoenix",),
        "ASP.NET": ("asp.net core", "asp.net"),
        "Ktor": ("ktor",),
        "Quarkus": ("quarkus",),
    },
    "preference.os": {
        "macOS": ("macos", "mac os", "os x", "osx", "mac"),
        "Windows": ("windows 11", "windows 10", "windows", "win11", "win10"),
        "Linux": ("linux",),
        "Ubuntu": ("ubuntu",),
        "Debian": ("debian",),
        "Fedora": ("fedora",),
        "Arch Linux": ("arch linux", "archlinux", "arch"),
        "Manjaro": ("manjaro",),
        "CentOS": ("centos",),
        "NixOS": ("nixos",),
        "Linux Mint": ("linux mint",),
        "FreeBSD": ("freebsd",),
        "openSUSE": ("opensuse",),
        "Pop!_OS": ("pop!_os", "pop os", "popos"),
        "WSL": ("wsl2", "wsl"),
        "ChromeOS": ("chromeos", "chrome os"),
    },
    "preference.shell": {
        "bash": ("bash",),
        "zsh": ("zsh", "oh-my-zsh", "oh my zsh"),
        "fish": ("fish",),
        "PowerShell": ("powershell", "pwsh"),
        "Nushell": ("nushell",),
        "tcsh": ("tcsh",),
        "ksh": ("ksh",),
        "xonsh": ("xonsh",),
    },
    "preference.cloud": {
        "AWS": ("amazon web services", "aws"),
        "Azure": ("microsoft azure", "azure"),
        "Google Cloud": ("google cloud platform", "google cloud", "gcp"),
        "阿里云": ("阿里云", "aliyun", "alibaba cloud"),
        "腾讯云": ("腾讯云", "tencent cloud"),
        "华为云": ("华为云", "huawei cloud"),
        "DigitalOcean": ("digitalocean", "digital ocean"),
        "Linode": ("linode",),
        "Hetzner": ("hetzner",),
        "Vercel": ("vercel",),
        "Netlify": ("netlify",),
        "Heroku": ("heroku",),
        "Cloudflare": ("cloudflare",),
        "Fly.io": ("fly.io",),
        "Oracle Cloud": ("oracle cloud",),
    },
}
# Forms that are also ordinary words: only with the key's own noun in the sentence.
AMBIGUOUS_FORMS = frozenset(
    {"arch", "mac", "fish", "spring", "express", "rails", "react", "remix", "astro", "gin",
     "phoenix", "oracle", "windows", "mongo", "solid.js", "nuxt", "angular", "linux"}
)  # fmt: skip
# Names of tools of other catalogues (the registry's editors and package managers) that are
# also ordinary words: a bare "we use yarn" may be knitting, "we use a flask" a laboratory.
ORDINARY_WORD_NAMES = frozenset(
    {"cursor", "idea", "nano", "notepad", "flask", "helix", "yarn", "bun", "vi", "sublime",
     "zed", "cassandra", "toml", "venv"}
)  # fmt: skip
