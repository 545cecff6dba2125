# One image for every role: docker run <image> <role>   (api, saga-worker, relay, payment-worker, reconciler)
# and the schema's one-shot migration: docker run <image> migrate
# The production image (the last stage, the default target) has no sandbox participants: role sandbox
# there exits with an error naming the missing module. The `sandbox` target adds them
# (docker build --target sandbox), for docker-compose.yml's stand-in participants (docs/decisions/0031).
# Base images by tag: pin them by digest (FROM image:tag@sha256:...) as docs/security.md ("Deployment") shows.
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN ./mvnw -q -B -DskipTests -Dmaven.test.skip=true package -pl app -am

FROM eclipse-temurin:17-jre AS product
# An unprivileged user with a fixed id (orchestrators can check runAsNonRoot by number): a hole in
# the product is not root in the container. The jars stay root's, so the process cannot change them.
# Its data directory (SAGA_DATA_DIR, the generated admin token) is the one place it may write: a
# named volume mounted there starts with this directory's owner and mode.
RUN groupadd --system --gid 10001 sagas \
    && useradd --system --uid 10001 --gid sagas --home-dir /app --no-create-home --shell /usr/sbin/nologin sagas \
    && install -d -o 10001 -g 10001 -m 700 /var/lib/sagas
WORKDIR /app
COPY --from=build /src/app/target/sagas-app.jar /app/sagas-app.jar
COPY --from=build /src/app/target/lib /app/lib
ENV SAGA_HTTP_HOST=0.0.0.0
USER 10001:10001
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-cp", "/app/sagas-app.jar:/app/lib/*", "org.sagas.app.Main"]
CMD ["--help"]

# The product plus the sandbox participants: only for stand-in participants, never a production role.
FROM product AS sandbox
COPY --from=build /src/app/target/sandbox-lib /app/lib
CMD ["sandbox"]

# Last, so a plain `docker build .` makes the production image.
FROM product
