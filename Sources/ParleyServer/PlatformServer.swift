import AccessToken
import ParleyCore
import ParleyCrypto
import ParleyNet
import ParleyStore
import PlatformCore
import PushNotifications
import RoomService
import ServerMedia
import SIPGateway
import SIPMedia
import Signaling
import Synchronization
import VoiceEngine
import SIPCredentialsREST
import VideoREST
import VoiceREST
import WebRTC

/// The server's own base URL, for URLs it hands out (recordings, direct-dial documents): the
/// configured public URL, or the listener's address once it is bound.
final class PublicBaseURL: Sendable {
    let configured: String?
    let scheme: String
    let host: String
    let port = Atomic<Int>(0)

    init(configured: String?, scheme: String, host: String) {
        self.configured = configured
        self.scheme = scheme
        self.host = ["0.0.0.0", "::", ""].contains(host) ? "127.0.0.1" : host
    }

    var url: String {
        if let configured { return configured.hasSuffix("/") ? String(configured.dropLast()) : configured }
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(h):\(port.load(ordering: .relaxed))"
    }
}

/// `parley-server` as a library: the store, the token verifier, the API router and the HTTP
/// listener, wired together. Tests start it in-process on port 0; `parley-server` runs it until a
/// signal arrives.
public final class PlatformServer: Sendable {
    public let configuration: ServerConfiguration
    public let store: any PlatformStore
    public let metrics = ServerMetrics()
    /// The account and API key created on first start (or found on later ones).
    public let defaultCredentials: DefaultCredentials
    /// The shared WebRTC media socket (`--media`), bound in `init`.
    public let media: MediaTransportServer
    private let http: HTTPServer
    /// The call engine (signaling, TwiML, bridging).
    let voice: VoiceService
    /// Video rooms (their lifecycle, record and status callbacks).
    let rooms: RoomService
    /// Compositions of rooms' recordings, made one at a time with ffmpeg.
    let compositions: CompositionQueue
    private let mediaClock: MediaClock
    private let player: CallMediaPlayer
    private let webhookHTTP: HTTPClient
    private let mediaEvents: Task<Void, Never>
    /// Per-identity and per-key limits, shared by `/v1/echo` and the call engine.
    let quotas: QuotaLedger
    private let echo: EchoEndpoint
    /// WHIP and WHEP into rooms.
    private let roomWHIP: RoomWHIPEndpoint
    /// Ends what revoked keys authenticated (from `start()` to `shutdown()`).
    private let credentialWatcher = Mutex<CredentialWatcher?>(nil)
    /// SIP's transports and registrar (`--sip`), from `start()` to `shutdown()`.
    let sip: SIPServiceSlot
    /// SIP legs' media (`--sip`).
    let sipMedia: SIPMediaBridge?
    /// The heartbeat task (`VoiceService.recordLiveness`).
    private let liveness = Mutex<Task<Void, Never>?>(nil)

    /// Makes the recordings directory ready (created mode 0700, proven writable), opens (or
    /// creates, mode 0600) the store, ensures the default account and key exist, and prepares the
    /// listener. Nothing listens until `start()`. `clock` times the call engine's timers (ring
    /// timeouts, time limits, TwiML pauses, resume windows): tests pass a virtual clock.
    /// `roomMedia` carries rooms' media: by default the SFU on the server's WebRTC socket
    /// (`WebRTCRoomMedia`); tests pass an in-memory twin.
    public init(configuration: ServerConfiguration, store: (any PlatformStore)? = nil,
                clock: any MonotonicClock = SystemClock(), roomMedia: (any RoomMediaPlane)? = nil) throws {
        self.configuration = configuration
        try RecordingsDirectory.prepare(configuration.recordingsDirectory)
        let store = try store ?? SQLiteAccountStore(path: configuration.databasePath)
        self.store = store
        defaultCredentials = try store.ensureDefaultAccount()
        let verifier = AccessTokenVerifier(resolver: StoreKeyResolver(store: store), leeway: configuration.tokenLeeway)
        var mediaConfig = MediaTransportServer.Configuration(host: configuration.mediaHost, port: configuration.mediaPort,
                                                             advertisedHosts: configuration.mediaAdvertisedHosts)
        mediaConfig.maxSessions = configuration.mediaMaxSessions
        mediaConfig.roomPublishBitrate = configuration.roomPublishKbps * 1000
        mediaConfig.roomDataBitrate = configuration.roomDataKbps * 1000
        media = try MediaTransportServer(configuration: mediaConfig)
        // Heads up to 32 KB, so an access token over its 16 KB limit reaches the verifier (20101).
        var httpConfig = HTTPServer.Configuration(host: configuration.host, port: configuration.port,
                                                  maxHeaderBytes: 32 * 1024,
                                                  webSocketMaxMessageBytes: SignalingLimits.maxMessageBytes,
                                                  threads: configuration.threads)
        httpConfig.requestTimeout = configuration.requestTimeout
        httpConfig.output.stallTimeout = configuration.writeTimeout
        httpConfig.webSocketOutput.stallTimeout = configuration.writeTimeout
        httpConfig.maxUnauthenticatedPerAddress = configuration.maxUnauthenticatedPerAddress
        httpConfig.errorResponse = { status, detail in APIErrorResponse.serverError(status: status, detail: detail) }
        if let cert = configuration.tlsCertificatePath, let key = configuration.tlsPrivateKeyPath {
            httpConfig.tls = .server(certificatePath: cert, privateKeyPath: key)
        }
        let base = PublicBaseURL(configured: configuration.publicURL,
                                 scheme: configuration.tlsCertificatePath == nil ? "http" : "https",
                                 host: configuration.host)
        webhookHTTP = try HTTPClient()
        mediaClock = MediaClock()
        // Client legs on WebRTC; pairs that cannot forward (codecs differ) meet in a transcoding relay.
        // SIP legs (`--sip`) on RTP sockets of their own, known to the composite by their ids' prefix.
        sipMedia = try configuration.sipHost.map { sipHost in
            let advertised = configuration.mediaAdvertisedHosts.first
                ?? (configuration.mediaHost == "0.0.0.0" || configuration.mediaHost == "::" ? sipHost : configuration.mediaHost)
            return SIPMediaBridge(server: try SIPMediaServer(configuration: .init(host: configuration.mediaHost, advertisedHost: advertised)))
        }
        let bridge = CompositeMediaBridge(primary: WebRTCMediaBridge(media: media),
                                          others: sipMedia.map { [(SIPMediaBridge.idPrefix, $0)] } ?? [], clock: mediaClock)
        player = CallMediaPlayer(sink: bridge)
        mediaClock.add(player)
        // Ringback, hold music and silence are encoded once per codec, shared by every call.
        try player.prepare([.ringback(.us), .holdMusic, .silence], codecs: [.opus, .pcmu, .pcma])
        var providers: [String: any PushProvider] = [:]
        if let url = configuration.pushWebhookURL {
            providers["webhook"] = try WebhookPushProvider(url: url, client: webhookHTTP) { [store] accountSid in
                (try? store.account(sid: accountSid))?.authToken
            }
        }
        if let key = configuration.apnsKeyPath, let keyID = configuration.apnsKeyID,
           let team = configuration.apnsTeamID, let bundle = configuration.apnsBundleID {
            var apns = APNsConfiguration(keyPath: key, keyID: keyID, teamID: team, bundleID: bundle)
            if let url = configuration.apnsURL { apns.endpoint = url }
            apns.trustRootsPath = configuration.apnsTrustRoots
            providers["apns"] = try APNsProvider(configuration: apns)
        }
        let quotas = QuotaLedger(limits: configuration.quotas)
        self.quotas = quotas
        var roomConfig = RoomService.Configuration()
        roomConfig.clock = clock
        let iceServers = try configuration.iceServerIssuer()
        roomConfig.iceServers = Self.roomICEServers(iceServers)
        roomConfig.recordingsDirectory = configuration.recordingsDirectory
        roomConfig.mixClock = mediaClock
        // One ffmpeg for remuxes and compositions; shutdown kills what it runs.
        let ffmpeg = FFmpeg()
        if ffmpeg == nil { Log.warning(.platform, "ffmpeg is not installed: room recordings and compositions will fail") }
        roomConfig.remux = { input, output throws(MediaError) in
            guard let ffmpeg else { throw MediaError(.internalFailure, "ffmpeg is not installed (scripts/install-deps)") }
            return try await ffmpeg.remuxToMatroska(input, output: output)
        }
        let rooms = RoomService(store: store, webhooks: WebhookClient(http: webhookHTTP),
                                media: roomMedia ?? WebRTCRoomMedia(transport: media),
                                configuration: roomConfig)
        self.rooms = rooms
        var compositionConfig = CompositionQueue.Configuration(directory: configuration.recordingsDirectory)
        compositionConfig.clock = clock
        compositions = CompositionQueue(store: store, webhooks: WebhookClient(http: webhookHTTP), ffmpeg: ffmpeg,
                                        configuration: compositionConfig)
        var voiceConfig = VoiceService.Configuration()
        voiceConfig.recordingsDirectory = configuration.recordingsDirectory
        voiceConfig.clock = clock
        let voice = VoiceService(configuration: voiceConfig, store: store, media: bridge, verifier: verifier,
                                 metrics: metrics, player: player, speech: SpeechSynthesizer(),
                                 fetcher: try MediaFetcher(client: webhookHTTP),
                                 webhooks: WebhookClient(http: webhookHTTP),
                                 pushProviders: providers, quotas: quotas,
                                 roomSignaling: RoomSignalingAdapter(router: LocalRoomRouter(rooms: rooms), quotas: quotas), publicBaseURL: { base.url })
        self.voice = voice
        mediaEvents = Task { await voice.runMediaEvents() }
        // SIP credentials over REST (both vendors' shapes), hashed for the default digest realm.
        let sipCredentials = SIPCredentialSettings(sipHost: configuration.host)
        var rest = TwilioRESTRouter(store: store, calls: voice, publicBaseURL: { base.url })
        rest.iceServers = iceServers
        echo = EchoEndpoint(media: media, quotas: quotas)
        roomWHIP = RoomWHIPEndpoint(roomRouter: LocalRoomRouter(rooms: rooms), quotas: quotas)
        let sipSlot = SIPServiceSlot()
        let router = APIRouter(verifier: verifier, metrics: metrics,
                               endpoints: [echo, TwilioSIPRouter(store: store, settings: sipCredentials), rest,
                                           PlivoEndpointRouter(store: store, settings: sipCredentials),
                                           VideoRESTRouter(store: store, control: rooms, compositions: compositions,
                                                           publicBaseURL: { base.url }),
                                           PushRegistrationEndpoint(store: store, providers: Set(providers.keys)),
                                           RoomPage(), roomWHIP,
                                           InsightsEndpoint(store: store)],
                               figures: { [media, sipSlot, bridge] in await Self.figures(of: media) + sipSlot.figures + bridge.figures })
        let http = HTTPServer(configuration: httpConfig, admission: { head in await router.admit(head) }) { request in
            await router.handle(request)
        }
        metrics.setListenerFigures { [weak http] in
            guard let http else { return [] }
            return [("parley_http_buffered_body_bytes", "gauge", http.bufferedBodyByteCount),
                    ("parley_http_connections_refused_total", "counter", http.refusedConnectionCount)]
        }
        let signaling = SignalingEndpoint(service: voice, verifier: verifier, metrics: metrics)
        signaling.install(on: http)
        if configuration.sipHost != nil {
            SIPWebSocketEndpoint.install(on: http, slot: sipSlot, secure: configuration.tlsCertificatePath != nil)
        }
        self.http = http
        self.base = base
        self.sip = sipSlot
    }

    private let base: PublicBaseURL

    /// The media server's lines in `/metrics`.
    private static func figures(of media: MediaTransportServer) async -> [MetricFigure] {
        let stats = await media.statistics()
        return [("parley_media_sessions", "gauge", stats.sessions),
                ("parley_media_datagrams_received_total", "counter", stats.datagramsReceived),
                ("parley_media_datagrams_sent_total", "counter", stats.datagramsSent),
                ("parley_media_rtp_forwarded_total", "counter", stats.rtpForwarded),
                ("parley_media_red_received_total", "counter", stats.sessionTotals.redReceived),
                ("parley_media_red_recovered_total", "counter", stats.sessionTotals.redBlocksRecovered),
                ("parley_media_red_wrapped_total", "counter", stats.sessionTotals.redWrapped),
                ("parley_media_retransmissions_total", "counter", stats.sessionTotals.retransmissionsSent),
                ("parley_media_retransmissions_missed_total", "counter", stats.sessionTotals.retransmissionsMissed),
                ("parley_media_retransmissions_refused_total", "counter", stats.sessionTotals.retransmissionsRefused),
                ("parley_media_layer_switches_total", "counter", stats.sessionTotals.layerSwitches),
                ("parley_media_track_switches_total", "counter", stats.sessionTotals.slotSwitches),
                ("parley_media_probe_padding_total", "counter", stats.sessionTotals.paddingSent),
                ("parley_media_probes_passed_total", "counter", stats.sessionTotals.probesPassed),
                ("parley_media_probes_failed_total", "counter", stats.sessionTotals.probesFailed),
                ("parley_media_simulcast_layer0_packets_total", "counter", stats.sessionTotals.layerPackets[0]),
                ("parley_media_simulcast_layer1_packets_total", "counter", stats.sessionTotals.layerPackets[1]),
                ("parley_media_simulcast_layer2_packets_total", "counter", stats.sessionTotals.layerPackets[2]),
                ("parley_media_simulcast_layer3_packets_total", "counter", stats.sessionTotals.layerPackets[3]),
                ("parley_media_data_messages_forwarded_total", "counter", stats.sessionTotals.dataMessagesForwarded),
                ("parley_media_data_messages_dropped_total", "counter", stats.sessionTotals.dataMessagesDropped),
                ("parley_media_data_messages_over_rate_total", "counter", stats.sessionTotals.dataMessagesOverRate),
                ("parley_media_publish_over_rate_total", "counter", stats.sessionTotals.publishOverRate),
                ("parley_media_data_channels_dropped_total", "counter", stats.sessionTotals.dataChannelsDropped),
                ("parley_media_dropped_total", "counter", stats.unknownDropped + stats.unroutedDropped)]
    }

    /// Settles the calls and rooms a crashed predecessor left unfinished (`VoiceService+Recovery`,
    /// `RoomService+Recovery`), then binds and starts serving.
    public func start() throws {
        _ = rooms.settleUnfinishedRooms(lastAlive: try? store.lastLiveness())
        rooms.settleUnfinishedRecordings()
        let compositions = self.compositions
        Task { await compositions.resume() }
        _ = voice.settleUnfinishedCalls()
        let voice = self.voice
        liveness.withLock { $0 = Task { await voice.recordLiveness() } }
        try http.start()
        base.port.store(http.localPort, ordering: .relaxed)
        try startSIP()
        mediaClock.start()
        let echo = self.echo, roomWHIP = self.roomWHIP
        credentialWatcher.withLock {
            $0 = CredentialWatcher(store: store) { changes in
                for sid in changes.revokedKeys {
                    Log.info(.platform, "API key \(sid) was revoked: ending what it authenticated")
                    await voice.apiKeyRevoked(sid)
                    await echo.revoke(apiKeySid: sid)
                    await roomWHIP.revoke(apiKeySid: sid)
                }
                for (account, token) in changes.rotatedTokens {
                    await voice.authTokenRotated(accountSid: account, authToken: token)
                }
            }
        }
        let scheme = configuration.tlsCertificatePath == nil ? "http" : "https"
        let mediaAddresses = media.candidates.map { "\($0)" }.joined(separator: " ")
        Log.info(.platform, "listening on \(scheme)://\(configuration.host):\(http.localPort), media udp \(mediaAddresses)")
        if defaultCredentials.created {
            Log.info(.platform, "created default account \(defaultCredentials.account.sid) and API key \(defaultCredentials.apiKey.sid)")
        }
    }

    /// The bound port (after `start()`).
    public var port: Int { http.localPort }

    /// Stops accepting, lets in-flight requests finish, then closes.
    public func shutdown() async {
        let watcher = credentialWatcher.withLock { w -> CredentialWatcher? in
            defer { w = nil }
            return w
        }
        await watcher?.stop()
        liveness.withLock { $0?.cancel() }
        await voice.shutdown()
        stopSIP()
        await http.shutdown()
        await compositions.shutdown()
        await rooms.flushRecordings()
        mediaClock.stop()
        player.stopAll()
        await mediaEvents.value
        await media.shutdown()
        Log.info(.platform, "stopped")
    }
}
