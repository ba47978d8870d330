# The platform's image: web (gunicorn), Celery worker and beat run the same code.
#   DOCKER_BUILDKIT=1 docker build -f deploy/web.Dockerfile -t cucumber-arena-web .
# BuildKit reads this file's own deploy/web.Dockerfile.dockerignore (the classic builder
# would send the whole repository, local env files included). No "# syntax=" line: it
# would make BuildKit pull its frontend from a registry; the built-in one suffices.
# Both bases are build arguments, so a host with a registry mirror (or no registry and
# images of its own, deploy/offline_images.py) can substitute them.
#
# Everything a container serves is made here, at build time: the platform and the SDK are
# installed as wheels built from the tree (what runs is what was packaged), the SDK's wheel
# that /getting-started/ offers and the static files sit in /app, root's and read-only. A
# container starts by serving, as uid 1000, and writes only to /data (the volume) and /tmp.
ARG PYTHON_IMAGE=python:3.12-slim
# The worker runs bots through the Engine API on the host's socket (arena/sandbox); the
# client binary, from Docker's official CLI image, serves `python -m arena image` (pulls).
ARG DOCKER_CLI_IMAGE=docker:27-cli

FROM ${DOCKER_CLI_IMAGE} AS docker-cli

# The locked dependencies (make lock; every file checked against its hash): the layer a
# code change reuses.
FROM ${PYTHON_IMAGE} AS dependencies
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
COPY requirements/platform.txt /tmp/requirements.txt
RUN pip install --require-hashes -r /tmp/requirements.txt && rm /tmp/requirements.txt

# The two wheels, built from the tree by the locked setuptools (no build isolation, so
# nothing unlocked is fetched): the platform's (arena and web) and the SDK's.
FROM dependencies AS wheels
WORKDIR /src
COPY pyproject.toml ./
COPY sdk/pyproject.toml sdk/README.md ./sdk/
COPY sdk/src ./sdk/src
COPY arena ./arena
COPY platform ./platform
RUN pip wheel --no-deps --no-build-isolation --wheel-dir /dist/sdk ./sdk \
    && pip wheel --no-deps --no-build-isolation --wheel-dir /dist/platform .

FROM dependencies
COPY --from=docker-cli /usr/local/bin/docker /usr/local/bin/docker
# Never root: uid 1000 owns the data volume and (on the host) the sandbox staging dir, and
# the folder of gunicorn's socket (docker-compose.yml: a volume the proxy mounts too, which
# takes this folder's owner when it is first mounted).
RUN useradd --create-home --uid 1000 --user-group arena \
    && install -d -o arena -g arena /data /keys /run/gunicorn
# Where the settings find what was made here (web/settings.py, arena/sandbox/image.py).
ENV DJANGO_SETTINGS_MODULE=web.settings \
    DATA_DIR=/data \
    STATIC_ROOT=/app/static \
    SDK_WHEEL_DIR=/app/sdk \
    DOCS_DIR=/app/docs \
    CUCUMBERS_SANDBOX_RECIPE=/app/deploy/sandbox
WORKDIR /app
# The SDK's wheel stays in /app/sdk: the site serves that very file.
COPY --from=wheels /dist/sdk ./sdk
COPY --from=wheels /dist/platform /tmp/platform
RUN pip install --no-deps /tmp/platform/*.whl ./sdk/cucumbers-*.whl \
    && rm -rf /tmp/platform \
    && pip check \
    && python -c "import web, arena, cucumbers, storages"
# gunicorn's settings, the health check and the sandbox image's recipe (the arena worker
# builds that image on the host's engine); the project's documents, which the site shows
# as its rules, ratings, writing-bots and replay-format pages (web/pages/documents.py).
COPY deploy/gunicorn.conf.py deploy/healthcheck.py ./deploy/
COPY deploy/sandbox ./deploy/sandbox
COPY docs ./docs
# The static files, collected once (a throwaway key and data folder: nothing is signed or
# stored, settings need both to load).
RUN SECRET_KEY=collectstatic-at-build DATA_DIR=/tmp/build-data \
    django-admin collectstatic --noinput -v 0 \
    && rm -rf /tmp/build-data \
    && test -f /app/static/staticfiles.json

USER arena
EXPOSE 8000
CMD ["gunicorn", "-c", "deploy/gunicorn.conf.py", "web.wsgi"]
