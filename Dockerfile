# Development image: Python, Node and everything metapvp needs, set up by the same
# scripts/install.sh that ./rp runs on a bare machine.
#   docker build -t metapvp .                                   # CPU build of torch (lean)
#   docker build -t metapvp:gpu --build-arg TORCH_PIP_ARGS= .   # PyPI's CUDA build; run with --gpus all
#   docker run -it -v "$(pwd)":/workspace metapvp ./rp -m nose2
# TORCH_PIP_ARGS are the pip arguments torch is installed with: PyTorch's CPU index by default;
# where that index cannot be reached, a directory of wheels in the build context, e.g.
#   --build-arg TORCH_PIP_ARGS="--no-index --find-links /workspace/wheels"
# NODE_IMAGE, RUST_IMAGE and PYTHON_IMAGE name the base images (made locally where no registry is
# reachable: docs/docker.md).
ARG NODE_IMAGE=node:20-bookworm-slim
ARG RUST_IMAGE=rust:1.95-slim-bookworm
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${NODE_IMAGE} AS node
FROM ${RUST_IMAGE} AS rust

FROM ${PYTHON_IMAGE}
# Node 20 (the project needs >= 20; Debian bookworm's own is 18) from the Node image
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/lib/node_modules /usr/local/lib/node_modules
# Rust (cargo, rustc) from the Rust image, for the native search `agent` thinks on (search-rs/:
# install.sh builds it into the venv); a C toolchain links it
COPY --from=rust /usr/local/cargo /usr/local/cargo
COPY --from=rust /usr/local/rustup /usr/local/rustup
ENV RUSTUP_HOME=/usr/local/rustup CARGO_HOME=/usr/local/cargo PATH=/usr/local/cargo/bin:$PATH
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*

ARG TORCH_SPEC=torch==2.13.0
# Where pip finds torch: empty for PyPI (on Linux x86-64 the CUDA build); for the CPU build,
# --build-arg TORCH_PIP_ARGS="--index-url URL" with PyTorch's index of CPU wheels as URL.
ARG TORCH_PIP_ARGS=
# The venv lives outside /workspace, with its stamps beside it (the native search's too), so a
# checkout mounted over /workspace keeps the installed packages and the built search; ./rp builds
# in the mount only what it lacks (npm packages, the bundle).
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
