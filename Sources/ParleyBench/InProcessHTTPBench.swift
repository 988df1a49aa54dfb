import Foundation
import ParleyServer
import ParleyStore

/// Starts a `PlatformServer` (one event-loop thread, in-memory store) and loads `/healthz`.
/// For the one-core figure in docs/PERFORMANCE.md, run `scripts/bench-http`, which pins the
/// server and the load generator to different cores.
enum InProcessHTTPBench {
    static func run(seconds: Double) throws {
        print("# HTTP (in-process server, 1 event-loop thread; load from 4 client threads on the same machine)")
        var config = ServerConfiguration()
        config.port = 0
        config.recordingsDirectory = NSTemporaryDirectory() + "parley-bench-recordings"
        let server = try PlatformServer(configuration: config, store: InMemoryAccountStore())
        try server.start()
        HTTPLoad(url: "http://127.0.0.1:\(server.port)/healthz", connections: 4, seconds: seconds).run()
    }
}
