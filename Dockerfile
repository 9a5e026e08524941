# BuzzKit: one image with every binary (buzzkit, buzzkit-apns, buzzkit-devicesim).
# Build: docker build -t buzzkit:latest .
FROM swift:6.3-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends \
      libpq-dev librabbitmq-dev libmicrohttpd-dev libcurl4-openssl-dev libnghttp2-dev libssl-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product buzzkit \
 && swift build -c release --product buzzkit-apns \
 && swift build -c release --product buzzkit-devicesim \
 && mkdir /out && cp .build/release/buzzkit .build/release/buzzkit-apns .build/release/buzzkit-devicesim /out/ \
 && cp -r .build/release/BuzzKit_BuzzStore.resources /out/ \
 && cp -r .build/release/BuzzKit_BuzzAPI.resources /out/

FROM swift:6.3-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      libpq5 librabbitmq4 libmicrohttpd12 libcurl4 libnghttp2-14 libssl3 ca-certificates tzdata curl \
    && rm -rf /var/lib/apt/lists/* && useradd --system --uid 10001 buzzkit \
    && mkdir /sim && chown buzzkit /sim
COPY --from=build /out/ /usr/local/bin/
USER buzzkit
ENV BUZZKIT_LOG_FORMAT=json
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/buzzkit"]
CMD ["help"]
