package org.sagas.orchestrator.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's answers to requests it refuses before any route (malformed request line, headers over
 * the limit: 431, URI too long: 414, bad characters: 400) as problem+json like every other error
 * of the API, without Jetty's HTML page or server details. Thread-safe.
 */
final class ProblemErrorHandler extends ErrorHandler {

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        int status = response.getStatus() >= 400 ? response.getStatus() : 500;
        Object code = request.getAttribute(ERROR_STATUS);
        if (code instanceof Integer value && value >= 400) {
            status = value;
        }
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, Problems.CONTENT_TYPE);
        response.write(true, ByteBuffer.wrap(problem(status)), callback);
        return true;
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(new HttpField(HttpHeader.CONTENT_TYPE, Problems.CONTENT_TYPE));
        return ByteBuffer.wrap(problem(status));
    }

    private static byte[] problem(int status) {
        String reason = HttpStatus.getMessage(status);
        String type = reason.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
        return Problems.body(status, type, reason, detail(status), java.util.Map.of())
                .getBytes(StandardCharsets.UTF_8);
    }

    private static String detail(int status) {
        return switch (status) {
            case 414 -> "the request URI is longer than the server accepts";
            case 431 -> "the request line and headers may be at most " + EdgeLimits.MAX_HEADER_BYTES + " bytes";
            case 413 -> "the request body is larger than the server accepts";
            case 408 -> "the request did not arrive in time";
            case 400 -> "the request is not valid HTTP";
            default -> HttpStatus.getMessage(status);
        };
    }
}
