/*
 * Local, single-node, embedded OpenSearch for memgate development and tests.
 *
 * A thin wrapper around org.codelibs.opensearch.runner.OpenSearchRunner, compiled and
 * started by deploy/local/services.sh. It exists because the runner's own main():
 *   - puts HTTP on baseHttpPort + 1, and
 *   - probes ports from there up to a hard-coded maximum of 9299: any base port at or above
 *     9299 fails with "The http port N is unavailable", and a busy port below it is silently
 *     replaced by the next free one.
 * Here the HTTP and transport ports are exact (a busy port is an error), the node binds to
 * one host only and runs in single-node discovery mode.
 *
 * System properties (set by services.sh):
 *   memgate.http.port       HTTP port (default 19200)
 *   memgate.transport.port  transport port (default 19300)
 *   memgate.host            bind/publish host (default 127.0.0.1)
 * Arguments are passed to OpenSearchRunner (-basePath, -confPath, -numOfNode, -pluginTypes, ...).
 */

import java.io.IOException;

import org.codelibs.opensearch.runner.OpenSearchRunner;

public final class MemgateOpenSearch {

    private MemgateOpenSearch() {
    }

    public static void main(final String[] args) throws Exception {
        final String httpPort = System.getProperty("memgate.http.port", "19200");
        final String transportPort = System.getProperty("memgate.transport.port", "19300");
        final String host = System.getProperty("memgate.host", "127.0.0.1");

        final OpenSearchRunner runner = new OpenSearchRunner();
        runner.setMaxHttpPort(-1); // no probing: use exactly the port we set below
        runner.onBuild((index, settings) -> {
            settings.put("http.port", httpPort);
            settings.put("transport.port", transportPort);
            settings.put("network.host", host);
            settings.put("discovery.type", "single-node");
            // a nearly full CI disk must not turn indices read-only
            settings.put("cluster.routing.allocation.disk.threshold_enabled", "false");
        });

        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                runner.close();
            } catch (final IOException e) {
                System.err.println("memgate-opensearch: close failed: " + e);
            }
        }, "memgate-opensearch-shutdown"));

        try {
            runner.build(args);
        } catch (final Throwable t) {
            System.err.println("memgate-opensearch: failed to start the node");
            t.printStackTrace();
            System.exit(1);
        }
        System.out.println("memgate-opensearch: node started, HTTP on " + host + ":" + httpPort);

        while (!runner.isClosed()) {
            Thread.sleep(1000);
        }
    }
}
