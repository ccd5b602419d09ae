// Runs the real Neo4j 5.26 kernel embedded, with the Bolt connector on a loopback port.
// Started by graph/neo4j_local.py; prints exactly one line "WORLDSTATE-NEO4J-READY bolt://HOST:PORT"
// once Bolt accepts connections. Shuts down cleanly on SIGTERM (shutdown hook) and, with
// --watch-stdin, when the parent's end of stdin closes. Bolt waits at most one second for
// its worker threads and open connections on shutdown (Neo4j's internal default: 5 minutes
// each), so a stop is not held up by a client that is still connected.
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

public final class Launcher {
    /** dbms.cypher.min_replan_interval, in seconds (see below). */
    static final long REPLAN_SECONDS = 60;

    public static void main(String[] args) throws Exception {
        Path home = null;
        String host = "127.0.0.1";
        int port = 7687;
        long pageCacheMb = 512;
        boolean watchStdin = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--home" -> home = Path.of(args[++i]);
                case "--host" -> host = args[++i];
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--page-cache-mb" -> pageCacheMb = Long.parseLong(args[++i]);
                case "--watch-stdin" -> watchStdin = true;
                default -> throw new IllegalArgumentException("unknown argument: " + args[i]);
            }
        }
        if (home == null) {
            throw new IllegalArgumentException("--home is required");
        }
        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress(host, port))
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pageCacheMb))
                .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofMinutes(5))
                // dbms.usage_report.enabled: a memory service's store never reports out.
                .setConfig(GraphDatabaseSettings.udc_enabled, false)
                // db.tx_log.preallocate: Neo4j reserves 256 MiB per database for each
                // transaction log file up front (512 MiB for an empty home); a local store
                // grows its logs as it writes instead, so a test run's many homes fit a small disk.
                .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                // internal.server.bolt.thread_pool_shutdown_wait_time and
                // internal.server.bolt.connection_shutdown_wait_time.
                .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofSeconds(1))
                .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofSeconds(1))
                // dbms.cypher.min_replan_interval (Neo4j's default: 10 s): a cached plan whose
                // statistics moved is planned again at most once a minute. A store that grows
                // fast from small (an import: every label count doubles again and again) had
                // every statement planned again every 10 s, at 50-500 ms of CPU each; that
                // was a third of Neo4j's CPU in an import (issue 12, bench/import_bench.py).
                .setConfig(GraphDatabaseSettings.cypher_min_replan_interval, Duration.ofSeconds(REPLAN_SECONDS))
                .build();
        // Touch the default database so the ready line means "queries will run".
        dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME).executeTransactionally("RETURN 1");
        Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown, "neo4j-shutdown"));
        System.out.println("WORLDSTATE-NEO4J-READY bolt://" + host + ":" + port);
        System.out.flush();
        if (watchStdin) {
            InputStream in = System.in;
            try {
                while (in.read() != -1) {
                    // Ignore anything the parent writes; only the end of the stream matters.
                }
            } catch (IOException ignored) {
                // A broken pipe means the parent is gone, same as end of stream.
            }
            System.exit(0);  // Runs the shutdown hook.
        }
        Thread.currentThread().join();
    }
}
