# pragmalab: one static binary (CGO off; the SQLite driver is pure Go).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/pragmalab .

FROM debian:bookworm-slim
# CA certificates for HTTPS model endpoints.
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/pragmalab /usr/local/bin/pragmalab
# The database lives on a volume; PORT (set by Fly) overrides the port.
VOLUME /data
ENV PRAGMALAB_DB=/data/pragmalab.db
EXPOSE 8080
ENTRYPOINT ["pragmalab"]
CMD ["serve", "--addr", "0.0.0.0:8080"]
