# lockkv as a container image: a static binary on distroless, run as a
# non-root user, its data dir a volume.
#
#   docker build -t lockkv \
#     --build-arg VERSION=$(git describe --tags --always --dirty) \
#     --build-arg REVISION=$(git rev-parse HEAD) .
#   docker run -d -p 6379:6379 -v lockkv-data:/data lockkv
#
# The default command is a durable single server on /data (README,
# "Operations"), its metrics, /health and /ready on port 9121. The health
# check asks /ready ("lockkv ready"), so a cluster node without a leader or
# far behind is unhealthy even while it answers PING. Other settings go in
# a config file given as the command, its flags after it; keep
# --metrics-addr with port 9121 for the health check:
#
#   docker run -d -p 6379:6379 -v lockkv-data:/data -v $PWD/lockkv.conf:/etc/lockkv.conf:ro \
#     lockkv /etc/lockkv.conf --raft-addr 127.0.0.1:16379 --data-dir /data --metrics-addr 0.0.0.0:9121

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
# go.mod replaces hashicorp/raft with the patched copy (third_party/README.md).
COPY third_party/hashicorp/raft/go.mod third_party/hashicorp/raft/
RUN go mod download
COPY . .
ARG VERSION=dev
ARG REVISION=
# The build lockkv's tests repeat (cmd/lockkv TestReleaseBuild): static,
# no paths of this machine, the release's version and revision.
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/lockkv/lockkv/internal/buildinfo.version=${VERSION} -X github.com/lockkv/lockkv/internal/buildinfo.revision=${REVISION}" -o /out/lockkv ./cmd/lockkv
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/lockkv /usr/local/bin/lockkv
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
WORKDIR /data
VOLUME /data
# Clients, and Raft (the client port + 10000, --raft-addr).
EXPOSE 6379 16379 9121
# lockkv answers PING itself (no redis-cli in the image); it reads the
# password from REDISCLI_AUTH, as redis-cli does. It says the process
# serves, not that a cluster node has a leader.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["/usr/local/bin/lockkv", "ready", "--metrics-addr", "127.0.0.1:9121"]
ENTRYPOINT ["/usr/local/bin/lockkv"]
# Every interface (a container's clients come from other hosts), the
# Raft port of this single server on loopback only, durable in /data.
# Without --requirepass protected mode turns remote clients away: set one,
# e.g. CMD flags "--requirepass", "..." or a config file.
CMD ["--addr", "0.0.0.0:6379", "--raft-addr", "127.0.0.1:16379", "--data-dir", "/data", "--metrics-addr", "0.0.0.0:9121"]
