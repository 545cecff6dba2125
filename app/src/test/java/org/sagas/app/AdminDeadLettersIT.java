package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.sagas.app.AdminAccessIT.assertProblem;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.testkit.RealInfrastructure;

/**
 * Dead letters in one place: outbox rows the broker refused, replayed or
 * discarded, and Kafka dead-letter records listed with their reason and redriven to their source
 * topic with the same key and headers plus a redrive header — each action audited.
 */
@RealInfrastructure
class AdminDeadLettersIT extends GameDayLifecycle {

    @Override
    Map<String, String> settings() {
        return AdminHttp.SETTINGS;
    }

    @Test
    void shouldReplayOrDiscardAnOutboxDeadLetterAndAuditEach() {
        // Given two outbox rows the relay dead-lettered
        String aggregate = UUID.randomUUID().toString();
        long replayed = deadLetter(aggregate);
        long discarded = deadLetter(UUID.randomUUID().toString());
        AdminHttp admin = AdminHttp.operator(product);
        JsonNode listed = admin.getJson("/admin/outbox/dead-letters?limit=1000");
        assertThat(listed.get("deadLetters").findValuesAsText("id")).contains(Long.toString(replayed),
                Long.toString(discarded));
        assertThat(listed.get("deadLetters").findValuesAsText("error")).contains("RecordTooLargeException: test");

        // When an operator replays one and discards the other
        HttpResponse<String> replay = admin.post("/admin/outbox/dead-letters/" + replayed + "/replay",
                AdminHttp.reason("topic limit raised"));
        HttpResponse<String> discard = admin.delete("/admin/outbox/dead-letters/" + discarded);

        // Then the replayed row is published, the discarded one gone, and a second try finds nothing
        assertThat(replay.statusCode()).as(replay.body()).isEqualTo(204);
        assertThat(discard.statusCode()).as(discard.body()).isEqualTo(204);
        assertThat(new KafkaProbe(bootstrap).find(Topics.NOTIFICATIONS, aggregate, "CustomerNotice",
                Duration.ofSeconds(30))).isPresent();
        assertProblem(admin.delete("/admin/outbox/dead-letters/" + discarded), 404);
        assertThat(admin.auditOf("outbox:" + replayed).findValuesAsText("outcome")).containsExactly("APPLIED");
        assertThat(admin.auditOf("outbox:" + discarded).findValuesAsText("outcome"))
                .containsExactly("NOT_FOUND", "APPLIED");
        assertThat(admin.auditOf("outbox:" + replayed).get(0).path("reason").asText()).isEqualTo("topic limit raised");
    }

    @Test
    void shouldListKafkaDeadLettersWithTheirReasonAndRedriveOneToItsSourceTopic() {
        // Given a record the reply consumer could not read, set aside on payments.events.dlt
        String key = UUID.randomUUID().toString();
        String messageId = UUID.randomUUID().toString();
        ProducerRecord<String, byte[]> poison = new ProducerRecord<>(Topics.PAYMENTS_EVENTS, key,
                "not json".getBytes(StandardCharsets.UTF_8));
        poison.headers().add(Topics.MESSAGE_ID, messageId.getBytes(StandardCharsets.UTF_8));
        poison.headers().add(Topics.MESSAGE_TYPE, "PaymentCaptured".getBytes(StandardCharsets.UTF_8));
        new KafkaProbe(bootstrap).send(poison);
        AdminHttp admin = AdminHttp.operator(product);
        String dlt = Topics.deadLetter(Topics.PAYMENTS_EVENTS);
        AtomicReference<JsonNode> found = new AtomicReference<>();
        await("dead-lettered").atMost(Duration.ofSeconds(60)).until(() -> {
            for (JsonNode r : admin.getJson("/admin/kafka/dead-letters?topic=" + dlt + "&limit=1000").get("records")) {
                if (key.equals(r.path("key").asText())) {
                    found.set(r);
                    return true;
                }
            }
            return false;
        });
        JsonNode record = found.get();
        assertThat(record.path("reason").asText()).contains("not JSON");
        assertThat(record.path("headers").path(Topics.MESSAGE_ID).asText()).isEqualTo(messageId);
        JsonNode topics = admin.getJson("/admin/kafka/dead-letters").get("topics");
        assertThat(topics.findValuesAsText("topic")).contains(dlt);

        // When an operator redrives it
        String body = "{\"topic\":\"" + dlt + "\",\"partition\":" + record.path("partition").asInt() + ",\"offset\":"
                + record.path("offset").asLong() + ",\"reason\":\"consumer fixed\"}";
        HttpResponse<String> redrive = admin.post("/admin/kafka/dead-letters/redrive", body);

        // Then it is back on its source topic with the same key, value and headers, and a redrive header
        assertThat(redrive.statusCode()).as(redrive.body()).isEqualTo(200);
        assertThat(TestProduct.read(redrive.body()).path("to").path("topic").asText()).isEqualTo(Topics.PAYMENTS_EVENTS);
        String source = dlt + "/" + record.path("partition").asInt() + "@" + record.path("offset").asLong();
        var again = new KafkaProbe(bootstrap).read(Topics.PAYMENTS_EVENTS, Duration.ofSeconds(30),
                r -> key.equals(r.key()) && KafkaProbe.header(r, "dlt-redrive") != null);
        assertThat(again).singleElement().satisfies(r -> {
            assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("not json");
            assertThat(KafkaProbe.header(r, Topics.MESSAGE_ID)).isEqualTo(messageId);
            assertThat(KafkaProbe.header(r, Topics.MESSAGE_TYPE)).isEqualTo("PaymentCaptured");
            assertThat(KafkaProbe.header(r, "dlt-redrive")).isEqualTo(source);
        });
        // And a second redrive needs force; each is audited
        assertProblem(admin.post("/admin/kafka/dead-letters/redrive", body), 409);
        assertThat(admin.post("/admin/kafka/dead-letters/redrive", body.replace("}", ",\"force\":true}"))
                .statusCode()).isEqualTo(200);
        assertThat(admin.auditOf("kafka:" + source).findValuesAsText("outcome"))
                .containsExactly("APPLIED", "REFUSED", "APPLIED");
        assertProblem(admin.post("/admin/kafka/dead-letters/redrive", "{\"topic\":\"" + dlt + "\",\"partition\":0,"
                + "\"offset\":999999999}"), 404);
        assertProblem(admin.get("/admin/kafka/dead-letters?topic=no.such.dlt"), 404);
    }

    /** A row as the relay moves it when the broker refuses it for good, with an id from the outbox's own sequence. */
    private static long deadLetter(String aggregate) {
        return product.product().node().jdbi.withHandle(h -> {
            long id = h.createQuery("SELECT nextval(pg_get_serial_sequence('outbox', 'id'))").mapTo(Long.class).one();
            h.createUpdate("INSERT INTO outbox_dead_letter (id, aggregate_id, topic, message_id, message_type,"
                            + " correlation_id, payload, created_at, error, relay_instance) VALUES (:id, :a,"
                            + " 'notifications', :m, 'CustomerNotice', :a, :p, now(), 'RecordTooLargeException: test',"
                            + " 'relay-test')")
                    .bind("id", id).bind("a", aggregate).bind("m", UUID.randomUUID())
                    .bind("p", "{\"orderId\":\"" + aggregate + "\",\"kind\":\"TEST\"}").execute();
            return id;
        });
    }
}
