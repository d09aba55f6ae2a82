# flockd, the fake IronFlock platform, as a container image: a static
# binary on distroless (no shell, no package manager), run as the
# distroless non-root user 65532, its data folder the volume /data.
#
#   docker build --build-arg VERSION=v1.2.0 -t flockd .
#   docker run -p 8080:8080 -v flockd-data:/data flockd
#   docker run -p 8080:8080 -v flockd-data:/data -v "$PWD/plant.yml:/config/plant.yml:ro" \
#     flockd -listen 0.0.0.0:8080 -data /data -config /config/plant.yml
#
# Off loopback the console asks for a token: flockd logs the one it
# generated, or set one with -console-token (docs/flockd.md §7).
# .ci/run runs this file's `go build` line (the one starting with
# RUN CGO_ENABLED=0) as it stands, since docker is not there.

FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
ARG TARGETOS=linux
ARG TARGETARCH=amd64
ARG VERSION=devel
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags "-s -w -X main.version=$VERSION" -o /out/flockd ./cmd/flockd
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/flockd /usr/local/bin/flockd
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
VOLUME /data
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/flockd"]
CMD ["-listen", "0.0.0.0:8080", "-data", "/data"]
