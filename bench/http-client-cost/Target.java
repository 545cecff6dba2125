import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
/** A fixed JSON answer on 127.0.0.1:PORT, for ClientCost. */
public class Target {
    public static void main(String[] a) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(a[0])), 100);
        byte[] body = "{\"reservationId\":\"5b0f4a3e-1111-2222-3333-444455556666\",\"status\":\"RESERVED\"}".getBytes(StandardCharsets.UTF_8);
        s.createContext("/", x -> { x.getRequestBody().readAllBytes(); x.getResponseHeaders().add("Content-Type", "application/json");
            x.sendResponseHeaders(200, body.length); x.getResponseBody().write(body); x.close(); });
        s.setExecutor(Executors.newFixedThreadPool(4));
        s.start();
    }
}
