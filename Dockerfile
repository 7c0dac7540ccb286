# Development image: Python, Node and everything metapvp needs, set up by the same
# scripts/install.sh that ./rp runs on a bare machine.
#   docker build -t metapvp .                                   # CPU build of torch (lean)
#   docker build -t metapvp:gpu --build-arg TORCH_PIP_ARGS= .   # PyPI's CUDA build; run with --gpus all
#   docker run -it -v "$(pwd)":/workspace metapvp ./rp -m nose2
# TORCH_PIP_ARGS are the pip arguments torch is installed with: PyTorch's CPU index by default;
# where that index cannot be reached, a directory of wheels in the build context, e.g.
#   --build-arg TORCH_PIP_ARGS="--no-index --find-links /workspace/wheels"
# NODE_IMAGE and PYTHON_IMAGE name the base images (made locally where no registry is reachable:
# docs/docker.md).
ARG NODE_IMAGE=node:20-bookworm-slim
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${NODE_IMAGE} AS node

FROM ${PYTHON_IMAGE}
# Node 20 (the project needs >= 20; Debian bookworm's own is 18) from the Node image
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/lib/node_modules /usr/local/lib/node_modules
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/*

ARG TORCH_SPEC=torch==2.13.0
# Where pip finds torch: empty for PyPI (on Linux x86-64 the CUDA build); for the CPU build,
# --build-arg TORCH_PIP_ARGS="--index-url URL" with PyTorch's index of CPU wheels as URL.
ARG TORCH_PIP_ARGS=
# The venv lives outside /workspace, with its stamp beside it, so a checkout mounted over
# /workspace keeps the installed packages; ./rp builds in the mount only what it lacks (npm
# packages, the bundle).
ENV METAPVP_VENV=/opt/metapvp-venv \
    METAPVP_TORCH_SPEC=${TORCH_SPEC} \
    METAPVP_TORCH_PIP_ARGS=${TORCH_PIP_ARGS} \
    PIP_NO_CACHE_DIR=1
WORKDIR /workspace
COPY . /workspace
# Where the registries are reached through a proxy with its own certificate authority: its .crt
# files in docker-certs/ of the build context (git ignores the folder) are trusted by apt, pip
# and npm, here and in containers of the image.
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
RUN if ls docker-certs/*.crt >/dev/null 2>&1; then \
      cp docker-certs/*.crt /usr/local/share/ca-certificates/ && update-ca-certificates; fi \
 && scripts/install.sh && rm -rf /root/.npm /root/.cache
CMD ["./rp", "-m", "nose2"]
