# syntax=docker/dockerfile:1
# memwarden: one image for every process (api, relay, the four stage workers, migrate).
# The command picks the process, e.g. `memwarden worker gate`; see deploy/ and
# docs/operations.md.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY memwarden ./memwarden
COPY shared ./shared
COPY services ./services
# Wheels for memwarden and every dependency, so the final stage installs offline.
RUN pip wheel --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    MEMWARDEN_LOG_FORMAT=json
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-index --find-links /wheels memwarden \
    && useradd --system --uid 10001 --user-group --create-home --home-dir /home/memwarden memwarden
# A numeric user, so Kubernetes' runAsNonRoot can verify it.
USER 10001:10001
WORKDIR /home/memwarden
# 8080: `memwarden api`; 9100: /metrics of a worker or relay (MEMWARDEN_METRICS_PORT).
EXPOSE 8080 9100
CMD ["memwarden", "--help"]
