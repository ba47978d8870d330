# The platform's image: web (gunicorn), Celery worker and beat run the same code.
#   DOCKER_BUILDKIT=1 docker build -f deploy/web.Dockerfile -t cucumber-arena-web .
# BuildKit reads this file's own deploy/web.Dockerfile.dockerignore (the classic builder
# would send the whole repository, local env files included). No "# syntax=" line: it
# would make BuildKit pull its frontend from a registry; the built-in one suffices.
# Both bases are build arguments, so a host with a registry mirror (or no registry and
# images of its own, deploy/offline_images.py) can substitute them.
ARG PYTHON_IMAGE=python:3.12-slim
# The worker runs bots through the Engine API on the host's socket (arena/sandbox); the
# client binary, from Docker's official CLI image, serves `python -m arena image` (pulls).
ARG DOCKER_CLI_IMAGE=docker:27-cli

FROM ${DOCKER_CLI_IMAGE} AS docker-cli

FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=web.settings \
    DATA_DIR=/data
COPY --from=docker-cli /usr/local/bin/docker /usr/local/bin/docker

# Never root: uid 1000 owns the data volume and (on the host) the sandbox staging dir.
RUN useradd --create-home --uid 1000 --user-group arena \
    && install -d -o arena -g arena /data

WORKDIR /app
# The locked dependencies first (make lock; every file checked against its hash), so that
# a code change reuses this layer.
COPY requirements/platform.txt ./requirements/
RUN pip install --require-hashes -r requirements/platform.txt
COPY pyproject.toml manage.py ./
COPY sdk/pyproject.toml sdk/README.md ./sdk/
COPY sdk/src ./sdk/src
COPY arena ./arena
COPY platform ./platform
COPY deploy ./deploy
# Editable, as `make install` does: `python -m arena image` finds the sandbox recipe
# (deploy/sandbox/) and the SDK beside the code, and manage.py runs from /app. Nothing
# more is resolved: the locked setuptools builds them (no build isolation).
RUN pip install --no-deps --no-build-isolation -e ./sdk -e . \
    && python -c "import web, arena, cucumbers, storages"
# The project's own documents: the site shows the rules, ratings, writing-bots and
# replay-format pages from them (web/pages/documents.py).
COPY docs ./docs

USER arena
EXPOSE 8000
CMD ["gunicorn", "-c", "deploy/gunicorn.conf.py", "web.wsgi"]
