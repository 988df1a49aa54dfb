import ParleyCore
import ParleyCrypto
import ParleyStore
import PlatformCore
import Synchronization
import ParleyNet
import SIP
import SIPGateway
import SIPWire
import VoiceEngine

/// SIP on the server (`--sip`, `--sip-tls`): its own event loop, the transports, the registrar
/// over the REST-managed credentials (`StoreSIPCredentials`) and the store's bindings, and a
/// minute's sweep of expired bindings.
final class SIPService: Sendable {
    let loop: EventLoop
    let transport: SIPTransport
    let registrar: SIPRegistrarService
    /// Calls phones place (INVITE, ACK, BYE, CANCEL).
    let calls: SIPCallService
    /// The per-address INVITE/REGISTER rate limit (`--sip-request-rate`).
    let flood: SIPFloodGuard
    private let sweep: Task<Void, Never>

    init(configuration: ServerConfiguration, store: any PlatformStore, voice: VoiceService, media: SIPMediaBridge) throws {
        loop = try EventLoop(name: "sip")
        var settings = SIPTransport.Configuration(host: configuration.sipHost ?? "127.0.0.1", port: configuration.sipPort)
        settings.tlsClient = TLSConfiguration(trustRootsPath: configuration.sipTLSTrustRoots)
        if let host = configuration.sipTLSHost, let cert = configuration.tlsCertificatePath, let key = configuration.tlsPrivateKeyPath {
            settings.tls = .server(certificatePath: cert, privateKeyPath: key)
            settings.tlsPort = configuration.sipTLSPort
            if host != settings.host { Log.warning(.platform, "--sip-tls listens on --sip's host \(settings.host), not \(host)") }
        }
        let registrar = SIPRegistrarService(configuration: .init(realm: configuration.sipRealm),
                                            directory: StoreSIPCredentials(store: store, realm: configuration.sipRealm), store: store)
        self.registrar = registrar
        let calls = SIPCallService()
        self.calls = calls
        let flood = SIPFloodGuard(rate: Double(configuration.sipRequestRate), burst: Double(2 * configuration.sipRequestRate))
        self.flood = flood
        transport = SIPTransport(configuration: settings, loop: loop) { message, peer in
            if flood.refuses(message, from: peer) { return }
            if calls.handles(message) { calls.handle(message, from: peer) } else { registrar.handle(message, from: peer) }
        }
        flood.attach(transport)
        registrar.attach(transport)
        calls.attach(transport: transport, registrar: registrar, media: media, voice: voice, store: store, trunks: configuration.allSIPTrunks)
        sweep = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(60))
                let removed = registrar.expire()
                if removed > 0 { Log.debug(.platform, "SIP: \(removed) expired bindings removed") }
            }
        }
    }

    func start() throws { try transport.start() }

    func stop() {
        sweep.cancel()
        transport.stop()
        loop.stop()
    }
}

/// Where the running `SIPService` is kept (set by `start()`), and its lines in `/metrics`.
final class SIPServiceSlot: Sendable {
    let service = Mutex<SIPService?>(nil)

    var figures: [MetricFigure] {
        guard let (registrar, transport, calls, flood) = service.withLock({
            $0.map { ($0.registrar.statistics, $0.transport.statistics, $0.calls.activeCalls, $0.flood.counts) }
        }) else { return [] }
        return [("parley_sip_messages_received_total", "counter", transport.received),
                ("parley_sip_messages_sent_total", "counter", transport.sent),
                ("parley_sip_malformed_total", "counter", transport.malformed),
                ("parley_sip_oversized_total", "counter", transport.oversized),
                ("parley_sip_keepalives_total", "counter", transport.keepalives),
                ("parley_sip_registrations_total", "counter", registrar.registered),
                ("parley_sip_challenges_total", "counter", registrar.challenged),
                ("parley_sip_auth_failures_total", "counter", registrar.rejected),
                ("parley_sip_refused_sources_total", "counter", registrar.refusedSources),
                ("parley_sip_rate_limited_total", "counter", flood.refused),
                ("parley_sip_rate_limit_dropped_total", "counter", flood.dropped),
                ("parley_sip_calls_active", "gauge", calls)]
    }
}

extension PlatformServer {
    func startSIP() throws {
        guard configuration.sipHost != nil else { return }
        guard let sipMedia else { return }
        let service = try SIPService(configuration: configuration, store: store, voice: voice, media: sipMedia)
        service.transport.webSockets.port = port  // RFC 7118: `ws`/`wss` peers on the HTTP listener (`/sip`)
        try service.start()
        sip.service.withLock { $0 = service }
        Log.info(.platform, "SIP on udp/tcp \(configuration.sipHost ?? ""):\(service.transport.udpPort)"
                 + (configuration.sipTLSHost == nil ? "" : ", tls \(service.transport.tlsPort)")
                 + ", \(configuration.tlsCertificatePath == nil ? "ws" : "wss") on \(SIPWebSocketEndpoint.path), realm \(configuration.sipRealm)")
    }

    func stopSIP() {
        sip.service.withLock { s in
            s?.stop()
            s = nil
        }
    }

    /// SIP's bound ports (after `start()` with `--sip`): UDP and TCP share one; TLS has its own (0 without).
    public var sipPorts: (udp: Int, tcp: Int, tls: Int)? {
        sip.service.withLock { $0.map { ($0.transport.udpPort, $0.transport.tcpPort, $0.transport.tlsPort) } }
    }

    /// Writes the registrar's pending binding changes to the store now (they follow the registrar
    /// a few milliseconds behind): for whoever reads bindings from the store itself, such as a backup.
    public func flushSIPRegistrations() {
        sip.service.withLock { $0?.registrar }?.flush()
    }
}
