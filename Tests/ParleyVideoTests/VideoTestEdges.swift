import Foundation
import ParleyServer
import ParleyTestSupport
@testable import ParleyVideo

extension InProcessPlatform {
    /// Registers this server under an edge name of its own (`Video.servers` is process-wide, and
    /// suites run side by side), for `ConnectOptions.edge`.
    var videoEdge: String {
        let edge = "test-\(server.port)"
        Video.servers[edge] = baseURL
        return edge
    }
}
