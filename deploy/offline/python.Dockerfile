# The platform image's Python base for a host with no container registry, in place of
# python:3.12-slim: Debian's Python 3.11 in a virtual environment (Debian's own Python
# refuses pip installs), and a wheelhouse made on the host (`pip wheel` by a Python of the
# same version as this one, so that its dependency markers agree; the build context) that
# pip installs from with no index. deploy/web.Dockerfile then builds unchanged:
#   --build-arg PYTHON_IMAGE=cucumber-arena-offline/python:bookworm
# Built by deploy/offline_images.py.
ARG DEBIAN_IMAGE=cucumber-arena-offline/debian:bookworm
FROM ${DEBIAN_IMAGE} AS runtime
RUN apt-get update \
    && apt-get install -y python3 python3-venv passwd \
    && rm -rf /var/lib/apt/lists/* \
    && python3 -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
CMD ["python3"]

FROM runtime
COPY . /opt/wheels
# pip reads these: every later `pip install` of an image built on this one takes the
# wheelhouse's packages and never asks an index.
ENV PIP_NO_INDEX=1 \
    PIP_FIND_LINKS=/opt/wheels
