# pragmalab: one static binary (CGO off; the SQLite driver is pure Go).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/pragmalab .
# Litestream replicates the database (serve --replica), built from the Go
# module proxy at the version replica/litestream.go pins.
RUN CGO_ENABLED=0 GOBIN=/out go install -trimpath -ldflags="-s -w" github.com/benbjohnson/litestream/cmd/litestream@v0.5.18

FROM debian:bookworm-slim
# CA certificates for HTTPS model endpoints.
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/pragmalab /out/litestream /usr/local/bin/
# The database lives on a volume; PORT (set by Fly) overrides the port.
VOLUME /data
ENV PRAGMALAB_DB=/data/pragmalab.db
# Replicate to the Tigris bucket whose secrets Fly sets (fly storage create:
# BUCKET_NAME, AWS_ENDPOINT_URL_S3, AWS_REGION, AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY); without them the server says so and runs without
# a replica. Set another URL (s3://, sftp://, file://) to replicate there.
ENV PRAGMALAB_REPLICA=tigris
EXPOSE 8080
ENTRYPOINT ["pragmalab"]
CMD ["serve", "--addr", "0.0.0.0:8080"]
