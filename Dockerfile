# Development image: Python, Node and everything metapvp needs, set up by the same
# scripts/install.sh that ./rp runs on a bare machine.
#   docker build -t metapvp .
#   docker run -it -v "$(pwd)":/workspace metapvp ./rp -m nose2
FROM python:3.11-slim-bookworm

RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs npm git ca-certificates \
 && rm -rf /var/lib/apt/lists/*

# The venv lives outside /workspace so that mounting a checkout over it keeps the installed
# packages; npm packages and the bundle are rebuilt in the mount by ./rp if it lacks them.
ENV METAPVP_VENV=/opt/metapvp-venv
WORKDIR /workspace
COPY . /workspace
RUN scripts/install.sh
CMD ["./rp", "-m", "nose2"]
