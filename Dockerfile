# deskhand in a container: one private desktop per container, served over MCP on HTTP.
#
#   docker build -t deskhand .
#   docker run --rm -p 8765:8765 -e DESKHAND_TOKEN=<a token you chose> --shm-size=1g deskhand
#
# Debian with the README's packages, a non-root user, tini as PID 1 (it forwards SIGTERM and
# reaps orphans; deskhand then ends its desktop and apps and exits 0). The root filesystem can be
# read-only: everything deskhand writes goes to /tmp (mount an emptyDir there, see deploy/kubernetes).
# Add your apps to the apt line (e.g. mousepad, libreoffice-writer, chromium).
FROM debian:trixie-slim

ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      xvfb xauth dbus at-spi2-core openbox libturbojpeg0 \
      tini python3 python3-venv fonts-dejavu-core ca-certificates \
 && rm -rf /var/lib/apt/lists/*

COPY pyproject.toml constraints.txt README.md LICENSE /src/
COPY src /src/src
RUN python3 -m venv /opt/deskhand \
 && /opt/deskhand/bin/pip install --no-cache-dir -c /src/constraints.txt /src \
 && rm -rf /src

RUN useradd --uid 10001 --user-group --no-create-home --home-dir /tmp/home deskhand
USER 10001:10001
ENV PATH=/opt/deskhand/bin:$PATH \
    HOME=/tmp/home \
    DESKHAND_VIRTUAL=1 \
    DESKHAND_TRANSPORT=http \
    DESKHAND_HOST=0.0.0.0 \
    DESKHAND_PORT=8765
EXPOSE 8765
ENTRYPOINT ["/usr/bin/tini", "--"]
# /healthz and /readyz answer on the same port without the token; exit 3: the desktop did not start
CMD ["deskhand", "serve"]
