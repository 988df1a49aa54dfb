import HTTPWire
import ParleyCrypto
import Synchronization

/// An HTTP/1.1 client with keep-alive connection reuse, chunked responses, timeouts, and HTTPS.
public final class HTTPClient: Sendable {
    public struct Configuration: Sendable {
        /// Verification settings for `https` (ignored for `http`).
        public var tls: TLSConfiguration
        public var maxResponseHeaderBytes: Int
        public var maxResponseBodyBytes: Int
        public var maxIdleConnectionsPerHost: Int
        public var threads: Int

        public init(tls: TLSConfiguration = .client(), maxResponseHeaderBytes: Int = 64 * 1024,
                    maxResponseBodyBytes: Int = 64 * 1024 * 1024, maxIdleConnectionsPerHost: Int = 8,
                    threads: Int = 1) {
            self.tls = tls
            self.maxResponseHeaderBytes = maxResponseHeaderBytes
            self.maxResponseBodyBytes = maxResponseBodyBytes
            self.maxIdleConnectionsPerHost = maxIdleConnectionsPerHost
            self.threads = threads
        }
    }

    public let configuration: Configuration
    private let group: EventLoopGroup
    private let tlsContext: TLSContext
    private let idle = Mutex<[String: [HTTPClientConnection]]>([:])

    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        do {
            tlsContext = try TLSContext(configuration: configuration.tls, isServer: false)
        } catch {
            throw NetError.tls(error.message)
        }
        group = try EventLoopGroup(threads: configuration.threads, name: "http-client")
    }

    deinit { for loop in group.loops { loop.stop() } }

    /// Sends `request` to `url` (`http://` or `https://`). The URL's path and query replace
    /// `request.target`; `Host` is added when missing. `timeout` covers connecting and the response.
    public func send(_ request: HTTPRequest, to url: String, timeout: Duration = .seconds(30)) async throws -> HTTPResponse {
        let endpoint = try Endpoint(url: url)
        var request = request
        request.target = endpoint.target
        return try await send(request, to: endpoint, timeout: timeout)
    }

    /// `GET url`.
    public func get(_ url: String, timeout: Duration = .seconds(30)) async throws -> HTTPResponse {
        try await send(HTTPRequest(), to: url, timeout: timeout)
    }

    /// Sends `request` as is (its `target` is used) to `host:port`.
    public func send(_ request: HTTPRequest, host: String, port: Int, useTLS: Bool = false,
                     timeout: Duration = .seconds(30)) async throws -> HTTPResponse {
        try await send(request, to: Endpoint(host: host, port: port, useTLS: useTLS, target: request.target), timeout: timeout)
    }

    /// Closes idle connections and stops the client's event loops. Call when done.
    public func shutdown() {
        idle.withLock { $0.removeAll() }
        group.shutdown()
    }

    private func send(_ request: HTTPRequest, to endpoint: Endpoint, timeout: Duration) async throws -> HTTPResponse {
        var request = request
        if request.headers["Host"] == nil { request.headers.add("Host", endpoint.hostHeader) }
        if let reused = takeIdle(endpoint) {
            do {
                return try await execute(request, on: reused, timeout: timeout)
            } catch is HTTPClientConnection.StaleConnection {
                // The server closed the idle connection; retry once on a new one.
            }
        }
        let fd = try ClientChannel.connect(endpoint)
        let loop = group.next()
        let connection = HTTPClientConnection(loop: loop, endpoint: endpoint, limits: limits)
        connection.onIdle = { [weak self] in self?.release($0) }
        let tlsContext = tlsContext
        return try await withCheckedThrowingContinuation { [request] continuation in
            loop.execute {
                do {
                    connection.channel = try ClientChannel.open(fd: fd, loop: loop, endpoint: endpoint,
                                                                tlsContext: tlsContext, delegate: connection)
                } catch {
                    return continuation.resume(throwing: error)
                }
                connection.execute(request, timeout: timeout, continuation: continuation)
            }
        }
    }

    private var limits: HTTPLimits {
        HTTPLimits(maxHeaderBytes: configuration.maxResponseHeaderBytes, maxBodyBytes: configuration.maxResponseBodyBytes)
    }

    private func execute(_ request: HTTPRequest, on connection: HTTPClientConnection, timeout: Duration) async throws -> HTTPResponse {
        return try await withCheckedThrowingContinuation { continuation in
            connection.loop.execute {
                connection.markReused()
                connection.execute(request, timeout: timeout, continuation: continuation)
            }
        }
    }

    private func takeIdle(_ endpoint: Endpoint) -> HTTPClientConnection? {
        idle.withLock { pool in
            while let connection = pool[endpoint.poolKey]?.popLast() {
                if !connection.closed.load(ordering: .acquiring) { return connection }
            }
            return nil
        }
    }

    private func release(_ connection: HTTPClientConnection) {
        let kept = idle.withLock { pool in
            var list = pool[connection.endpoint.poolKey, default: []]
            list.removeAll { $0.closed.load(ordering: .acquiring) }
            guard list.count < configuration.maxIdleConnectionsPerHost else { return false }
            list.append(connection)
            pool[connection.endpoint.poolKey] = list
            return true
        }
        if !kept { connection.channel?.close() }
    }
}
