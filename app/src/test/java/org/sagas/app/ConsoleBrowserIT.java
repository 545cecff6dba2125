package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.UnexpectedAlertBehaviour;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.sagas.testkit.RealInfrastructure;

/**
 * The operations console (its overview and saga pages) in a real browser: Debian's headless Chromium
 * driven through its own chromedriver (both installed by ops/install-browser.sh; nothing is
 * downloaded here), against the real product during an inventory outage, as an operator would use
 * it: with the keyboard, through the confirmation dialog. Writes a screenshot of each page to
 * {@code target/console-screenshots/}. Skipped where Chromium is absent, failing instead when
 * {@code CI=true}.
 */
@RealInfrastructure
class ConsoleBrowserIT extends GameDayLifecycle {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target", "console-screenshots");
    /** Markup with a script in an attribute: the console must show it as these characters. */
    private static final String HOSTILE = "<img src=x onerror=alert(1)>";
    private static final String BROWSER_ZONE = "Asia/Kolkata";
    private static final Duration PAGE = Duration.ofSeconds(15);
    private static final Duration SETTLE = Duration.ofSeconds(60);

    private ChromeDriverService driverService;
    private WebDriver browser;
    private Path profile;
    private String lastTest = "";

    @Override
    Map<String, String> settings() {
        return AdminHttp.SETTINGS;
    }

    @BeforeEach
    void openBrowser(org.junit.jupiter.api.TestInfo test) throws IOException {
        lastTest = test.getTestMethod().map(java.lang.reflect.Method::getName).orElse("");
        boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (!present && "true".equalsIgnoreCase(System.getenv("CI"))) {
            fail("CI=true but " + CHROMIUM + " or " + CHROMEDRIVER + " is missing: run ops/install-browser.sh as root"
                    + " (Debian packages chromium and chromium-driver)");
        }
        assumeTrue(present, "console browser test skipped: no " + CHROMIUM + " and " + CHROMEDRIVER
                + " (install Debian's chromium and chromium-driver, e.g. sudo ops/install-browser.sh)");
        profile = Files.createTempDirectory("console-chromium-");
        // The driver's path is given, and so is the browser's: Selenium Manager has nothing to look for or fetch.
        // A zone away from UTC (the server's), so times shown in the browser's zone are told apart.
        driverService = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().withEnvironment(Map.of("TZ", BROWSER_ZONE)).build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + profile, "--window-size=1360,1000", "--lang=en-US");
        // An alert left open stays open, so the test can see whether one appeared.
        options.setUnhandledPromptBehaviour(UnexpectedAlertBehaviour.IGNORE);
        // The page's console (script errors, CSP violations) is kept for the report below.
        options.setCapability("goog:loggingPrefs", Map.of("browser", "ALL"));
        browser = new ChromeDriver(driverService, options);
        browser.manage().timeouts().scriptTimeout(PAGE);
        Files.createDirectories(SCREENSHOTS);
    }

    @AfterEach
    void closeBrowser() throws IOException {
        if (browser != null) {
            // What the browser showed last: the first thing to read when a step above timed out.
            screenshot("zz-last-" + lastTest);
            Files.writeString(SCREENSHOTS.resolve("zz-last-" + lastTest + ".txt"), browser.getCurrentUrl() + "\n\n"
                    + browser.findElement(By.tagName("body")).getText() + "\n\nconsole:\n"
                    + String.join("\n", browser.manage().logs().get("browser").getAll().stream()
                            .map(Object::toString).toList()));
            browser.quit();
        }
        if (driverService != null) {
            driverService.stop();
        }
        if (profile != null) {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void shouldLetAnOperatorSeeAParkedOrderRetryItAndWatchItConfirm() {
        // Given an operator signed in with the keyboard
        signIn();
        // And an order accepted while the inventory is down
        String customer = "c-console-" + UUID.randomUUID().toString().substring(0, 8);
        String sku = Submissions.sku();
        product.stock(sku, 5);
        product.inventoryFaults(GameDay.INVENTORY_DOWN);
        HttpResponse<String> accepted = product.submit(Submissions.key(), TestProduct.order(customer, sku, 1, 2500));
        assertThat(TestProduct.read(accepted.body()).path("status").asText()).as(accepted.body())
                .isEqualTo("PENDING_CONFIRMATION");
        UUID id = TestProduct.orderId(accepted);
        // And another whose stored SKU is markup: the public API refuses such a SKU (identifiers are
        // letters, digits and - _ . : @ / # +), so it is written into its saga's data as a version
        // without that rule could have (the orders the console reads are a view of the sagas, ADR 0019)
        HttpResponse<String> other = product.submit(Submissions.key(), TestProduct.order(customer + "-x", sku, 1, 100));
        UUID hostile = TestProduct.orderId(other);
        product.product().node().jdbi.useHandle(h -> h.createUpdate("UPDATE saga_instance SET data = jsonb_set(data,"
                + " '{lines,0,sku}', to_jsonb(CAST(:sku AS text))) WHERE saga_id = :id").bind("sku", HOSTILE)
                .bind("id", hostile).execute());

        // When the operator looks at the overview
        open("#/overview");
        // Then the order is there, pending, among the orders that need attention
        WebElement row = await().atMost(PAGE).ignoreExceptions().until(() -> browser.findElement(
                By.xpath("//section[@aria-label='Orders that need attention (newest first)']//tr[.//a[text()='" + id
                        + "']]")), r -> r != null);
        assertThat(row.getText()).contains("PENDING_CONFIRMATION", customer);
        // And counted (the figures may be a second old: the page's next refresh has them)
        await().atMost(PAGE).ignoreExceptions().until(() -> Long.parseLong(browser.findElement(By.id("pending-count"))
                .getText()) > 0);
        screenshot("01-overview");

        // When the inventory is back and the operator finds the order by its customer and opens it
        product.healthy();
        open("#/search?customerId=" + customer);
        WebElement link = await().atMost(PAGE).ignoreExceptions().until(() -> browser.findElement(By.linkText(
                id.toString())), l -> l != null);
        screenshot("02-search");
        link.sendKeys(Keys.ENTER);
        await().atMost(PAGE).ignoreExceptions().until(() -> statusShown().equals("PENDING_CONFIRMATION"));
        screenshot("03-saga-pending");

        // And retries it through the confirmation, giving a reason (free text, kept by the audit) by keyboard
        browser.findElement(By.xpath("//button[text()='Retry now']")).sendKeys(Keys.ENTER);
        WebElement reason = browser.findElement(By.id("confirm-reason"));
        await().atMost(PAGE).until(reason::isDisplayed);
        assertThat(browser.switchTo().activeElement()).isEqualTo(reason);
        reason.sendKeys(HOSTILE + " inventory is back", Keys.ENTER);

        // Then the saga page shows it confirmed, without a reload by hand
        await().atMost(SETTLE).ignoreExceptions().until(() -> statusShown().equals("CONFIRMED"));
        assertThat(product.status(id)).isEqualTo("CONFIRMED");
        String text = browser.findElement(By.tagName("body")).getText();
        assertThat(text).contains("operator_retry");
        // And the saga page names the definition version the order ran
        assertThat(text).contains("order v1");
        screenshot("04-saga-confirmed");
        // And the markup in the reason is shown as text: no element, no script ran
        assertThat(text).contains(HOSTILE + " inventory is back");
        assertThat(browser.findElements(By.tagName("img"))).isEmpty();
        assertNoAlert();
        // And every time on the page is the API's instant in the browser's zone, not the server's UTC
        JavascriptExecutor js = (JavascriptExecutor) browser;
        assertThat(((Number) js.executeScript("return new Date().getTimezoneOffset()")).intValue()).as("UTC+5:30")
                .isEqualTo(-330);
        List<?> times = (List<?>) js.executeScript("return [...document.querySelectorAll('time')]"
                + ".map(t => [t.dateTime, t.textContent, new Date(t.dateTime).toLocaleString()])");
        assertThat(times).hasSizeGreaterThan(5).allSatisfy(t -> {
            List<?> time = (List<?>) t;
            assertThat(time.get(1)).isEqualTo(time.get(2));
            assertThat((String) time.get(0)).endsWith("Z");
        });
        assertThat(AdminHttp.operator(product).auditOf(id.toString()).get(0).path("reason").asText())
                .isEqualTo(HOSTILE + " inventory is back");
        // And the definitions page lists the orders saga's versions, the one new orders start on marked
        open("#/definitions");
        WebElement v1 = await().atMost(PAGE).ignoreExceptions().until(() -> browser.findElement(
                By.xpath("//table//tr[td[1][text()='order'] and td[2][text()='v1']]")), r -> r != null);
        assertThat(v1.getText()).contains("yes");
        assertThat(browser.findElement(By.xpath("//table//tr[td[1][text()='order'] and td[2][text()='v2']]"))
                .getText()).doesNotContain("yes");
        // And so is the markup in the other order's SKU, on its saga page
        open("#/saga/" + hostile);
        await().atMost(PAGE).ignoreExceptions().until(() -> !browser.findElements(
                By.xpath("//td[text()='" + HOSTILE + "']")).isEmpty());
        assertThat(browser.findElements(By.xpath("//td[text()='" + HOSTILE + "']"))).hasSize(1);
        assertThat(browser.findElements(By.tagName("img"))).isEmpty();
        assertNoAlert();
        screenshot("04b-saga-hostile-sku");

        // When the operator dry-runs a batch over that customer's orders, then starts it
        open("#/batches?customerId=" + customer);
        WebElement dryRun = await().atMost(PAGE).ignoreExceptions().until(() -> browser.findElement(
                By.xpath("//button[text()='Dry run']")), b -> b != null);
        dryRun.sendKeys(Keys.ENTER);
        // Then the count and a sample come first
        await().atMost(PAGE).ignoreExceptions().until(() -> browser.findElement(By.id("dry-run-count")).getText()
                .equals("1"));
        assertThat(browser.findElements(By.linkText(id.toString()))).hasSize(1);
        screenshot("05-batch-dry-run");
        WebElement start = browser.findElement(By.id("batch-start"));
        assertThat(browser.switchTo().activeElement()).isEqualTo(start);
        start.sendKeys(Keys.ENTER);
        await().atMost(PAGE).until(reason::isDisplayed);
        reason.sendKeys("retry what is left for " + customer, Keys.ENTER);
        // And then its progress, to the end (a confirmed order is refused, and counted)
        await().atMost(SETTLE).ignoreExceptions().until(() -> browser.findElement(By.id("batch-progress")).getText()
                .equals("1 of 1 processed") && browser.findElement(By.className("batch-state")).getText()
                .equals("COMPLETED"));
        screenshot("06-batch-progress");

        // And the dead letters and the audit have pages of their own
        open("#/dead-letters");
        await().atMost(PAGE).ignoreExceptions().until(() -> !browser.findElements(By.cssSelector(
                "#outbox-dead-letters > *")).isEmpty() && !browser.findElements(By.cssSelector("#kafka-dead-letters > *"))
                .isEmpty());
        screenshot("07-dead-letters");
        open("#/audit");
        await().atMost(PAGE).ignoreExceptions().until(() -> browser.findElement(By.tagName("main")).getText()
                .contains(HOSTILE + " inventory is back"));
        screenshot("08-audit");
        assertThat(browser.findElements(By.tagName("img"))).isEmpty();
        assertNoAlert();
    }

    @Test
    void shouldServeTheConsoleWithAPolicyThatAllowsNoInlineScript() {
        // When the console's page and its script are fetched
        HttpResponse<String> page = product.send(HttpRequest.newBuilder(product.admin("/console/")).GET().build());
        HttpResponse<String> script = product.send(HttpRequest.newBuilder(product.admin("/console/console.js")).GET()
                .build());

        // Then no inline script or style may run, and the script is the jar's own file
        String policy = page.headers().firstValue("Content-Security-Policy").orElse("");
        assertThat(policy).contains("script-src 'self'", "default-src 'none'", "frame-ancestors 'none'")
                .doesNotContain("unsafe-inline", "unsafe-eval");
        assertThat(script.statusCode()).isEqualTo(200);
        assertThat(script.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t)
                .startsWith("text/javascript"));
        assertThat(script.body()).doesNotContain("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write");
        // And in the browser, nothing the policy forbids is attempted (no violation reported)
        signIn();
        open("#/overview");
        await().atMost(PAGE).ignoreExceptions().until(() -> browser.findElement(By.id("pending-count")) != null);
        List<?> violations = (List<?>) ((JavascriptExecutor) browser).executeScript(
                "return performance.getEntriesByType('resource').filter(e => !e.name.startsWith(location.origin))"
                        + ".map(e => e.name)");
        assertThat(violations).as("requests to other origins").isEmpty();
    }

    @Test
    void shouldBeUsableWithTheKeyboardWithTheFocusInSight() {
        // Given the overview, signed in, freshly loaded (focus at the top of the document)
        signIn();
        open("#/overview");
        browser.navigate().refresh();
        await().atMost(PAGE).ignoreExceptions().until(() -> browser.findElement(By.id("pending-count")) != null);
        JavascriptExecutor js = (JavascriptExecutor) browser;

        // When the operator tabs in: the first stop is the skip link, drawn with a focus ring
        browser.findElement(By.tagName("body")).sendKeys(Keys.TAB);
        WebElement skip = browser.switchTo().activeElement();
        assertThat(skip.getText()).isEqualTo("Skip to content");
        assertThat(js.executeScript("return getComputedStyle(document.activeElement).outlineStyle")).isEqualTo("solid");
        // And following it moves to the page without leaving it
        skip.sendKeys(Keys.ENTER);
        assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("view");
        assertThat(browser.getCurrentUrl()).endsWith("#/overview");

        // When the operator tabs through the header to the search page and opens it with Enter
        WebElement search = browser.findElement(By.linkText("Search"));
        search.sendKeys(Keys.ENTER);
        // Then the search form is there, its first field reachable, and Enter in a field submits it
        WebElement customer = await().atMost(PAGE).ignoreExceptions().until(() -> browser.findElement(
                By.id("f-customerId")), f -> f != null);
        customer.sendKeys("c-nobody-" + UUID.randomUUID().toString().substring(0, 8), Keys.ENTER);
        await().atMost(PAGE).until(() -> browser.getCurrentUrl().contains("#/search?customerId=c-nobody-"));
        await().atMost(PAGE).ignoreExceptions().until(() -> browser.findElement(By.tagName("main")).getText()
                .contains("No orders match."));
    }

    private void signIn() {
        browser.get(product.admin("/console/").toString());
        WebElement token = browser.findElement(By.id("token"));
        assertThat(browser.switchTo().activeElement()).isEqualTo(token);
        screenshot("00-sign-in");
        token.sendKeys(TestProduct.OPERATOR_TOKEN, Keys.ENTER);
        await().atMost(PAGE).ignoreExceptions().until(() -> browser.findElement(By.id("who")).getText()
                .startsWith("admin"));
    }

    private void open(String route) {
        browser.get(product.admin("/console/").toString() + route);
    }

    private String statusShown() {
        return browser.findElement(By.className("order-status")).getText();
    }

    private void assertNoAlert() {
        try {
            String alert = browser.switchTo().alert().getText();
            fail("an alert appeared: " + alert);
        } catch (NoAlertPresentException expected) {
            // none: the markup was never run
        }
    }

    private void screenshot(String name) {
        try {
            Files.write(SCREENSHOTS.resolve(name + ".png"), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
