package org.sagas.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {
    private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

    @Test
    void shouldHandOutPortsBelowTheKernelsEphemeralRangeAndNeverTheSameTwice() throws Exception {
        // Given a Linux kernel that says where its ephemeral range starts
        assumeTrue(Files.isReadable(RANGE), "no " + RANGE + " here");
        int low;
        try (var reader = Files.newBufferedReader(RANGE)) {
            low = Integer.parseInt(reader.readLine().strip().split("\\s+")[0]);
        }
        assumeTrue(low >= 11_000, "the ephemeral range leaves no room below it");

        // When ports are asked for
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            ports.add(FreePorts.find());
        }

        // Then each is below the range (no outgoing connection can take it) and none comes twice
        assertThat(FreePorts.ephemeralLow()).isEqualTo(low);
        assertThat(ports).hasSize(50).allSatisfy(p -> assertThat(p).isBetween(10_000, low - 1));
    }
}
