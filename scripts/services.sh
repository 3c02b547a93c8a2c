#!/usr/bin/env bash
# Make sure PostgreSQL and Redis answer on loopback: install them from Debian's packages if
# absent, start them if stopped, and create the test database. Idempotent.
set -euo pipefail

PG_HOST=127.0.0.1
PG_PORT=${PG_PORT:-5432}
REDIS_PORT=${REDIS_PORT:-6379}
TEST_DB=${MEMWARDEN_TEST_DB:-memwarden_test}
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

apt_install() {
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

ensure_postgres() {
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "services: installing PostgreSQL"
    apt_install postgresql
  fi
  if ! pg_isready -q -h "$PG_HOST" -p "$PG_PORT"; then
    echo "services: starting PostgreSQL"
    version=$(ls /etc/postgresql | sort -V | tail -n1)
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main start
    for _ in $(seq 1 30); do pg_isready -q -h "$PG_HOST" -p "$PG_PORT" && break; sleep 1; done
  fi
  pg_isready -h "$PG_HOST" -p "$PG_PORT"
  # Trust auth is what this machine ships; elsewhere give postgres a known password.
  if ! PGPASSWORD=postgres psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -tAc "select 1" >/dev/null 2>&1; then
    su postgres -c "psql -p $PG_PORT -c \"ALTER USER postgres PASSWORD 'postgres'\"" >/dev/null
  fi
  if ! PGPASSWORD=postgres psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -tAc \
      "select 1 from pg_database where datname='$TEST_DB'" | grep -q 1; then
    PGPASSWORD=postgres psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -qc "CREATE DATABASE $TEST_DB"
  fi
}

ensure_redis() {
  if ! command -v redis-server >/dev/null 2>&1; then
    echo "services: installing Redis"
    apt_install redis-server
  fi
  if ! redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null 2>&1; then
    echo "services: starting Redis"
    mkdir -p /var/lib/redis /var/log/redis
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" \
      --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
    for _ in $(seq 1 30); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.5; done
  fi
  redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping
}

ensure_chromium() {
  # The review console's browser test drives Debian's Chromium through Playwright (which never
  # downloads a browser here); the CJK font lets it render Chinese evidence.
  if [ ! -x /usr/bin/chromium ]; then
    echo "services: installing Chromium"
    apt_install chromium fonts-wqy-zenhei
  fi
}

ensure_postgres
ensure_redis
ensure_chromium
