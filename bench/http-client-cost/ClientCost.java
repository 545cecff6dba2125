import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;

/** CPU of this process per call: the JDK's HttpClient against Jetty's, paced at RATE calls/s. */
public class ClientCost {
    public static void main(String[] a) throws Exception {
        String mode = a[0]; int rate = Integer.parseInt(a[1]); int seconds = Integer.parseInt(a[2]); String url = a[3];
        String body = "{\"orderId\":\"5b0f4a3e-1111-2222-3333-444455556666\",\"lines\":[{\"sku\":\"SKU-1\",\"quantity\":1}]}";
        HttpClient jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(1)).build();
        org.eclipse.jetty.client.HttpClient jetty = new org.eclipse.jetty.client.HttpClient();
        jetty.setConnectTimeout(1000);
        jetty.setFollowRedirects(false);
        jetty.start();
        ExecutorService callers = Executors.newFixedThreadPool(16);
        AtomicLong done = new AtomicLong(), failed = new AtomicLong();
        Runnable call = () -> {
            try {
                int status;
                if (mode.equals("jdk")) {
                    status = jdk.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2))
                            .header("Accept", "application/json").header("Content-Type", "application/json")
                            .header("Idempotency-Key", "k-" + System.nanoTime())
                            .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
                } else {
                    ContentResponse r = jetty.newRequest(url).method(HttpMethod.POST).timeout(2, TimeUnit.SECONDS)
                            .headers(h -> h.put("Accept", "application/json").put("Idempotency-Key", "k-" + System.nanoTime()))
                            .body(new StringRequestContent("application/json", body)).send();
                    r.getContentAsString();
                    status = r.getStatus();
                }
                if (status == 200) done.incrementAndGet(); else failed.incrementAndGet();
            } catch (Exception e) { failed.incrementAndGet(); }
        };
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
        ticker.scheduleAtFixedRate(() -> callers.execute(call), 0, 1_000_000 / rate, TimeUnit.MICROSECONDS);
        Thread.sleep(5_000); // connections open, classes loaded
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime(), n0 = done.get();
        Thread.sleep(seconds * 1000L);
        long cpu1 = os.getProcessCpuTime(), n1 = done.get();
        System.out.printf("%s rate %d: %d calls, %.3f ms CPU per call, failed %d%n", mode, rate, n1 - n0,
                (cpu1 - cpu0) / 1e6 / (n1 - n0), failed.get());
        System.exit(0);
    }
}
