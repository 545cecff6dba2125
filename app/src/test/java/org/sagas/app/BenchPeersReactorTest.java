package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * bench-peers is not built with the product (docs/benchmarks.md, "Orders saga beside DBOS Transact
 * and Flowable"), so nothing else notices when it falls behind: its reactor takes the product's
 * modules from the root pom rather than a copied list, and every product module it depends on is
 * one the root pom builds, on the root pom's version. Reads the poms only (milliseconds); compiling
 * bench-peers is bench-peers/check.sh's job.
 */
class BenchPeersReactorTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void shouldBuildTheProductsModulesFromTheRootPomWhenRunningBenchPeers() throws Exception {
        // Given the reactor run-sagas.sh builds
        Document reactor = parse(ROOT.resolve("bench-peers/reactor/pom.xml"));

        // Then its modules are the root pom itself and bench-peers, never a list of the product's modules
        assertThat(children(reactor.getDocumentElement(), "modules", "module")).containsExactly("../..", "..");
        assertThat(ROOT.resolve("bench-peers/reactor").resolve("../../pom.xml").normalize())
                .isEqualTo(ROOT.resolve("pom.xml"));
    }

    @Test
    void shouldDependOnlyOnModulesTheRootPomBuildsWhenBenchPeersUsesTheProduct() throws Exception {
        // Given the root pom's modules, by artifact id
        Document root = parse(ROOT.resolve("pom.xml"));
        List<String> built = new ArrayList<>();
        for (String module : children(root.getDocumentElement(), "modules", "module")) {
            built.add(text(parse(ROOT.resolve(module).resolve("pom.xml")).getDocumentElement(), "artifactId"));
        }
        String version = text(root.getDocumentElement(), "version");

        // When bench-peers's pom is read
        Document peers = parse(ROOT.resolve("bench-peers/pom.xml"));
        Element parent = (Element) peers.getElementsByTagName("parent").item(0);
        List<String> ours = new ArrayList<>();
        NodeList dependencies = peers.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element dependency = (Element) dependencies.item(i);
            if ("org.sagas".equals(text(dependency, "groupId"))) {
                ours.add(text(dependency, "artifactId"));
            }
        }

        // Then its parent is the root pom, on its version, and each product module it uses is built there
        assertThat(text(parent, "artifactId")).isEqualTo(text(root.getDocumentElement(), "artifactId"));
        assertThat(text(parent, "version")).isEqualTo(version);
        assertThat(ours).isNotEmpty();
        assertThat(built).containsAll(ours);
    }

    private static Document parse(Path pom) throws Exception {
        assertThat(pom).exists();
        var factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        try (var in = Files.newInputStream(pom)) {
            return factory.newDocumentBuilder().parse(in);
        }
    }

    /** The text of {@code parent}'s direct child {@code name}, or null. */
    private static String text(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e.getTextContent().trim();
            }
        }
        return null;
    }

    /** The texts of {@code parent}'s {@code list}/{@code item} elements, in order. */
    private static List<String> children(Element parent, String list, String item) {
        List<String> items = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(list)) {
                for (Node m = e.getFirstChild(); m != null; m = m.getNextSibling()) {
                    if (m instanceof Element i && i.getTagName().equals(item)) {
                        items.add(i.getTextContent().trim());
                    }
                }
            }
        }
        return items;
    }
}
