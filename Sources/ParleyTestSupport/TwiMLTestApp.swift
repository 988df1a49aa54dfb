import Foundation
import HTTPWire
import ParleyCrypto
import ParleyNet
import Synchronization

/// A TwiML application for tests: an HTTP server on loopback that answers each path with the
/// document a test set, checks `X-Twilio-Signature` on every request with the account's auth
/// token, and records what it received.
public final class TwiMLTestApp: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var parameters: [String: String]
        public var signatureValid: Bool
        /// What was signed and the signature, for checking it with the vendor's own validator.
        public var url: String
        public var signature: String
    }

    private final class State: Sendable {
        let documents = Mutex<[String: String]>([:])
        let files = Mutex<[String: (contentType: String, body: [UInt8])]>([:])
        let received = Mutex<[Request]>([])
    }

    private let server: HTTPServer
    private let state = State()
    public let authToken: String

    public init(authToken: String) throws {
        self.authToken = authToken
        let state = self.state
        let box = PortBox()
        server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { request in
            let pairs = (try? FormURLEncoding.decode(request.body)) ?? []
            let url = "http://127.0.0.1:\(box.port.load(ordering: .relaxed))\(request.target)"
            let signature = request.headers["X-Twilio-Signature"] ?? ""
            let valid = WebhookSignature.validate(signature: signature, url: url,
                                                  parameters: request.method == "POST" ? pairs : [], authToken: authToken)
            var parameters: [String: String] = [:]
            for (k, v) in pairs { parameters[k] = v }
            for item in request.queryItems { parameters[item.name] = item.value }
            state.received.withLock { $0.append(Request(method: request.method, path: request.path, parameters: parameters,
                                                  signatureValid: valid, url: url, signature: signature)) }
            if let file = state.files.withLock({ $0[request.path] }) {
                return HTTPResponse(status: 200, headers: ["Content-Type": file.contentType], body: file.body)
            }
            guard let document = state.documents.withLock({ $0[request.path] }) else { return HTTPResponse(status: 404) }
            var response = HTTPResponse.text(document)
            response.headers.set("Content-Type", "text/xml")
            return response
        }
        try server.start()
        box.port.store(server.localPort, ordering: .relaxed)
    }

    private final class PortBox: Sendable { let port = Atomic<Int>(0) }

    public var baseURL: String { "http://127.0.0.1:\(server.localPort)" }

    /// Answers `path` with `twiml` (a whole `<Response>` document).
    public func set(_ path: String, _ twiml: String) {
        state.documents.withLock { $0[path] = twiml }
    }

    /// Serves `body` at `path` (e.g. a WAV for `<Play>`).
    public func serve(_ path: String, contentType: String, body: [UInt8]) {
        state.files.withLock { $0[path] = (contentType, body) }
    }

    /// Requests received so far, optionally only those for `path`.
    public func requests(_ path: String? = nil) -> [Request] {
        state.received.withLock { all in path.map { p in all.filter { $0.path == p } } ?? all }
    }

    public func shutdown() async { await server.shutdown() }
}
