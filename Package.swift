// swift-tools-version:6.0
// Parley: a self-hosted voice and video platform and its Swift SDK.
// Layers (a target imports targets of its own layer or lower ones, never a higher one; see
// docs/ARCHITECTURE.md; scripts/check-deps checks it, and that dependencies equal imports):
//   0 C                  COpenSSL CSRTP COpus CSQLite CSpeexDSP CPulseAudio CLame CNGHTTP2 CVPX CUsrSCTP
//                        (system libraries), CParleyLinux (epoll/mmsg shim), CV4L2 (linux/videodev2.h)
//   1 core / pure wire    ParleyCore WireKit JSONWire HTTPWire WebSocketWire STUN RTP RTCP SDP SIPWire TwiML VP8
//                        AudioCore VideoCore CallQuality NetworkConditioner MediaContainers BandwidthEstimation
//   2 crypto and media    ParleyCrypto ParleySRTP ParleyRTP ParleyOpus ParleyMP3 ParleyAudio ParleyVPX AccessToken
//                        ICE Signaling DataChannel SpeechScoring
//   3 networking, storage ParleyNet ParleyStore WebRTC SIPMedia AudioDevices PushNotifications SCTP SFU SIP
//   4 server, client core PlatformCore, ServerMedia, VoiceREST, VoiceEngine, VideoREST, RoomService (in that
//                        order), then ParleyServer (the wiring); ParleyClientCore
//   5 SDKs                ParleyVoice, ParleyEndpoint (SIP user agent), ParleyVideo, on ParleyClientCore
//   6 executables         parley-server parley parley-bench parley-fuzz; test support ParleyTestSupport, ParleyTestClock,
//                        CallHarness (in-process calls for the demo and the bench)
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    // A file uses members only of modules it imports itself (SE-0444), so imports say what a file needs.
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Parley",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "parley-server", targets: ["ParleyServerMain"]),
        .executable(name: "parley", targets: ["ParleyCLI"]),
        .executable(name: "parley-bench", targets: ["ParleyBench"]),
        .executable(name: "parley-fuzz", targets: ["ParleyFuzz"]),
        .library(name: "ParleyCore", targets: ["ParleyCore"]),
        .library(name: "AccessToken", targets: ["AccessToken"]),
        // The voice SDK, and the modules whose types its API uses, which an app imports when it
        // names them: ParleyCore (ParleyError, LogLevel, Logger), AudioCore and AudioDevices (audio
        // devices), CallQuality (quality warnings, media metrics), ICE (ICETransportPolicy).
        .library(name: "ParleyVoice", targets: ["ParleyVoice", "ParleyCore", "AudioCore", "AudioDevices", "CallQuality", "ICE"]),
        // The video SDK (issue 17, first step: rooms, participants and publications over room signaling).
        .library(name: "ParleyVideo", targets: ["ParleyVideo", "ParleyCore", "AudioCore", "AudioDevices", "VideoCore"]),
    ],
    targets: [
        // Layer 0: C libraries from the system (pkg-config), each wrapped by exactly one Swift target.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2",
                       providers: [.apt(["libsrtp2-dev"]), .brew(["srtp"])]),
        .systemLibrary(name: "CUsrSCTP", pkgConfig: "usrsctp",
                       providers: [.apt(["libusrsctp-dev"]), .brew(["usrsctp"])]),
        .systemLibrary(name: "CVPX", pkgConfig: "vpx",
                       providers: [.apt(["libvpx-dev"]), .brew(["libvpx"])]),
        .systemLibrary(name: "COpus", pkgConfig: "opus",
                       providers: [.apt(["libopus-dev"]), .brew(["opus"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(name: "CSpeexDSP", pkgConfig: "speexdsp",
                       providers: [.apt(["libspeexdsp-dev"]), .brew(["speexdsp"])]),
        .systemLibrary(name: "CPulseAudio", pkgConfig: "libpulse-simple",
                       providers: [.apt(["libpulse-dev"]), .brew(["pulseaudio"])]),
        .systemLibrary(name: "CLame", pkgConfig: "lame",
                       providers: [.apt(["libmp3lame-dev"]), .brew(["lame"])]),
        // libnghttp2: HTTP/2 framing, HPACK and session state for ParleyNet's HTTP2Client (APNs).
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2",
                       providers: [.apt(["libnghttp2-dev"]), .brew(["libnghttp2"])]),
        .target(name: "CParleyLinux"),
        // V4L2's UAPI header (linux/videodev2.h, from linux-libc-dev): struct layouts and ioctl
        // numbers for VideoCore's camera capture; empty off Linux. Nothing to link.
        .systemLibrary(name: "CV4L2"),

        // Layer 1: core types and pure wire formats (bytes in, values out; no I/O).
        .target(name: "ParleyCore", swiftSettings: strict),
        .target(name: "HTTPWire", swiftSettings: strict),
        .target(name: "WebSocketWire", dependencies: ["WireKit"], swiftSettings: strict),
        .target(name: "WireKit", swiftSettings: strict),
        // Pure JSON (RFC 8259): the value model, a strict parser and a compact writer, shared by
        // tokens, signaling, the REST API and Insights.
        .target(name: "JSONWire", swiftSettings: strict),
        .target(name: "STUN", dependencies: ["WireKit"], swiftSettings: strict),
        .target(name: "RTP", dependencies: ["WireKit"], swiftSettings: strict),
        .target(name: "RTCP", dependencies: ["WireKit"], swiftSettings: strict),
        .target(name: "SDP", dependencies: ["WireKit"], swiftSettings: strict),
        // SIP messages (RFC 3261 §7, §20, §25): URIs (sip, sips, tel), header fields and their typed
        // values (Via, From/To, CSeq, Contact, digest challenges and credentials, …), a datagram
        // parser and a stream framer with RFC 5626 keep-alives, the serializer; pure, no transactions.
        .target(name: "SIPWire", dependencies: ["WireKit"], swiftSettings: strict),
        // VP8 over RTP: payload descriptor and frame header (RFC 7741, RFC 6386 §9.1).
        .target(name: "VP8", swiftSettings: strict),
        // Video building blocks: I420 frames, scaling, the test pattern, Y4M and IVF parsing, PNG
        // snapshots, sources (paced on ParleyCore's clock) and sinks, cameras (V4L2 capture on Linux,
        // AVFoundation on macOS) and the pure conversions from their pixel formats.
        .target(name: "VideoCore", dependencies: ["ParleyCore", "WireKit", "CV4L2"], swiftSettings: strict),
        // libvpx's VP8 encoder and decoder (the only importer of libvpx).
        .target(name: "ParleyVPX", dependencies: ["CVPX", "VideoCore", "VP8"], swiftSettings: strict),
        // SCTP over a datagram path the owner provides (DTLS for data channels), on usrsctp without threads.
        .target(name: "SCTP", dependencies: ["CUsrSCTP", "ParleyCore"], swiftSettings: strict),
        // Recording containers: Ogg Opus (RFC 7845), IVF for VP8.
        .target(name: "MediaContainers", dependencies: ["VideoCore"], swiftSettings: strict),
        // The SFU's pure decisions (dominant speaker, network quality, forwarding); no I/O.
        .target(name: "SFU", dependencies: ["CallQuality", "RTP"], swiftSettings: strict),
        // WebRTC data channels: the DCEP messages (RFC 8832) and payload protocol identifiers.
        .target(name: "DataChannel", swiftSettings: strict),
        // Pure audio: formats, WAV, G.711, tone and DTMF generation, Goertzel detection, levels.
        .target(name: "AudioCore", swiftSettings: strict),
        // Pure call-quality model: MOS (E-model), Twilio quality warnings, Plivo media metrics.
        .target(name: "CallQuality", swiftSettings: strict),
        // Pure, seeded network model: loss (random, Gilbert-Elliott), delay, jitter, reordering, rate.
        .target(name: "NetworkConditioner", swiftSettings: strict),
        // Pure receive-side, delay-based bandwidth estimation (draft-ietf-rmcat-gcc-02 §5) on
        // abs-send-time: what a receiver sends back in REMB.
        .target(name: "BandwidthEstimation", swiftSettings: strict),
        // Pure TwiML: an XML reader, the verb model, and the interpreter as a value-type state machine.
        .target(name: "TwiML", swiftSettings: strict),

        // Layer 2: crypto and media.
        .target(name: "ParleyCrypto", dependencies: ["COpenSSL", "ParleyCore"], swiftSettings: strict),
        .target(name: "ParleySRTP", dependencies: ["COpenSSL", "CSRTP", "ParleyCore"], swiftSettings: strict),
        // RTP sessions for every kind of leg (WebRTC peers, server sessions; SIP legs and SFU tracks
        // next): SSRCs, streams, reception statistics, RTCP reports, SRTP; forwarding tracks.
        .target(name: "ParleyRTP", dependencies: ["RTP", "RTCP", "ParleySRTP"], swiftSettings: strict),
        .target(name: "ParleyOpus", dependencies: ["COpus", "ParleyCore"], swiftSettings: strict),
        // MP3 encoding with LAME, for recordings served as `.mp3`.
        .target(name: "ParleyMP3", dependencies: ["CLame"], swiftSettings: strict),
        // The audio engine: codecs, resampler, jitter buffer, RED and FEC, RFC 4733 DTMF, send/receive streams.
        .target(name: "ParleyAudio",
                dependencies: ["ParleyCore", "ParleyOpus", "CSpeexDSP", "AudioCore", "RTP", "RTCP", "CallQuality", "WireKit"],
                swiftSettings: strict),
        // PESQ-WB through the project's scorer (scripts/pesq-score, the venv's python3), found from the
        // working directory or the executable's location: one lookup for the CLI, the bench, the tests.
        .target(name: "SpeechScoring", dependencies: ["ParleyCore"], swiftSettings: strict),
        .target(name: "AccessToken", dependencies: ["ParleyCore", "ParleyCrypto", "JSONWire"], swiftSettings: strict),
        .target(name: "ICE", dependencies: ["STUN", "WireKit", "ParleyCore"], swiftSettings: strict),
        // The signaling protocol (docs/signaling.md): JSON messages between SDK and server, and the
        // voice push payload (`twi_*` keys) that carries an invite when no connection is open; pure.
        .target(name: "Signaling", dependencies: ["ParleyCore", "JSONWire", "HTTPWire"], swiftSettings: strict),

        // Layer 3: networking and storage.
        .target(name: "ParleyNet",
                dependencies: ["CParleyLinux", "ParleyCore", "ParleyCrypto", "HTTPWire", "WebSocketWire",
                               "NetworkConditioner", "CNGHTTP2"],
                swiftSettings: strict),
        // Push notifications for incoming calls: APNs VoIP over HTTP/2 (ES256 tokens), webhook relay.
        .target(name: "PushNotifications",
                dependencies: ["ParleyCore", "ParleyNet", "ParleyCrypto", "HTTPWire", "AccessToken", "JSONWire",
                               "Signaling"],
                swiftSettings: strict),
        // Audio devices (the seed's AudioDevice model): file, tone, null, mixing, PulseAudio.
        .target(name: "AudioDevices", dependencies: ["ParleyCore", "AudioCore", "CPulseAudio"],
                swiftSettings: strict),
        .target(name: "ParleyStore", dependencies: ["CSQLite", "ParleyCrypto"],
                swiftSettings: strict),
        // WebRTC peer sessions: RFC 7983 demux, ICE, DTLS-SRTP, RTP/RTCP on a ParleyNet UDP socket; data
        // channels (SCTP over DTLS) of room sessions.
        .target(name: "WebRTC",
                dependencies: ["ParleyCore", "ParleyNet", "ParleyCrypto", "ParleySRTP", "ParleyRTP", "ICE", "STUN", "RTP",
                               "SDP", "RTCP", "VP8", "SFU", "SCTP", "DataChannel", "BandwidthEstimation"],
                swiftSettings: strict),

        // Layer 4: the server as libraries (tests drive it in-process), each service over the platform core.
        // The platform core: HTTP routing, bearer and REST Basic auth, webhooks and status callbacks,
        // metrics, quotas, the credential watcher, the Twilio-shaped errors.
        .target(name: "PlatformCore",
                dependencies: ["ParleyCore", "ParleyNet", "ParleyStore", "AccessToken", "HTTPWire", "ParleyCrypto", "TwiML",
                               "JSONWire", "WireKit"],
                swiftSettings: strict),
        // Server media: what the server plays, mixes and records (speech, fetched audio, tones, the
        // 20 ms media clock, conference mixes, recordings and their MP3s, room track recordings,
        // ffmpeg remuxes and compositions).
        .target(name: "ServerMedia",
                dependencies: ["PlatformCore", "ParleyCore", "ParleyNet", "HTTPWire", "ParleyAudio", "ParleyOpus", "AudioCore",
                               "ParleyCrypto", "ParleyMP3", "ParleyStore", "MediaContainers", "VP8"],
                swiftSettings: strict),
        // The Twilio v2010-shaped REST API; it reaches live calls and conferences through the
        // interfaces it defines (`LiveCallControl`, `ConferenceDirectory`), never the engine itself.
        .target(name: "VoiceREST",
                dependencies: ["PlatformCore", "ServerMedia", "ParleyCore", "ParleyStore", "AccessToken", "HTTPWire", "TwiML",
                               "JSONWire", "ICE"],
                swiftSettings: strict),
        // The call engine: signaling sessions, TwiML, `<Dial>` over leg routes, conferences,
        // recordings, the Insights and push-registration endpoints; media through `CallMediaBridge`.
        .target(name: "VoiceEngine",
                dependencies: ["VoiceREST", "PlatformCore", "ServerMedia", "ParleyCore", "ParleyNet", "ParleyStore",
                               "AccessToken", "HTTPWire", "WebRTC", "TwiML", "Signaling", "PushNotifications", "WebSocketWire",
                               "ParleyCrypto", "JSONWire", "ParleyRTP"],
                swiftSettings: strict),
        // The Twilio Video v1-shaped REST API (Rooms, Participants, tracks, rules, recordings,
        // compositions); it reaches live rooms through the interface it defines (`RoomControl`).
        .target(name: "VideoREST",
                dependencies: ["ParleyCore", "ParleyStore", "SFU", "PlatformCore", "HTTPWire", "JSONWire", "ParleyCrypto"],
                swiftSettings: strict),
        // SIP (issue 18): RFC 3261 transactions (§17, with RFC 6026) as value-type state machines,
        // dialogs (§12) and the requests made in them, RFC 3264 offer/answer for one audio stream
        // with SDES-SRTP, digest authentication (RFC 7616/8760) with stateless nonces, the
        // failed-authentication limiter.
        .target(name: "SIP", dependencies: ["ParleyCrypto", "ParleyCore", "ParleyNet", "SDP", "SIPWire", "WebSocketWire"], swiftSettings: strict),
        // SIP legs' audio (issue 18): a socket per leg, plain RTP or SDES-SRTP, symmetric RTP, RTCP mux,
        // RFC 4733 keys, forwarding between legs, played frames and taps. No SIP signaling.
        .target(name: "SIPMedia", dependencies: ["ParleyCore", "ParleyCrypto", "ParleyNet", "ParleyRTP", "ParleySRTP", "RTP", "RTCP"],
                swiftSettings: strict),
        // SIP service (issue 18): the registrar (digest, bindings in the store, OPTIONS) on SIP's
        // transports; the B2BUA and trunks follow.
        .target(name: "SIPGateway", dependencies: ["SIP", "SIPWire", "SIPMedia", "SDP", "ParleyStore", "ParleyNet", "ParleyCore", "ParleyCrypto",
                                                   "ParleySRTP", "ServerMedia", "TwiML", "VoiceEngine", "ParleyRTP"], swiftSettings: strict),
        // Who may use SIP, over REST in both vendors' shapes: Plivo's Endpoint API (`/v1/Account/{auth_id}/
        // Endpoint/`) and Twilio's SIP API (credential lists, domains and their auth mappings, IP access
        // control lists); the store keeps digest secrets, never passwords. No SIP code.
        .target(name: "SIPCredentialsREST",
                dependencies: ["ParleyCore", "ParleyStore", "PlatformCore", "HTTPWire", "JSONWire", "ParleyCrypto"],
                swiftSettings: strict),
        // Rooms: the room registry, participants, tracks and subscriptions, room signaling, status
        // callbacks; media through `RoomMediaPlane` (the SFU on WebRTC's media socket).
        .target(name: "RoomService",
                dependencies: ["ParleyCore", "ParleyStore", "PlatformCore", "SFU", "TwiML", "VideoREST", "Signaling", "ServerMedia", "ParleyOpus"],
                swiftSettings: strict),
        // The wiring: configuration, `PlatformServer` (store, media socket, engine, routers,
        // listener), the `/v1/echo` endpoint.
        .target(name: "ParleyServer",
                dependencies: ["VoiceEngine", "VoiceREST", "RoomService", "VideoREST", "SIPCredentialsREST", "PlatformCore", "ServerMedia", "ParleyCore", "ParleyNet",
                               "ParleyStore", "AccessToken", "HTTPWire", "WebRTC", "TwiML", "Signaling", "PushNotifications", "ParleyCrypto",
                               "SDP", "SFU", "ICE", "SIP", "SIPWire", "SIPGateway", "SIPMedia"],
                swiftSettings: strict),

        // Layer 4: what every client SDK needs, nothing voice-specific: the signaling channel and its
        // resume, settings (servers, edge, Insights, log levels), the Insights publisher, REST
        // requests to the server, the default delegate queue. `package` API: apps never see it.
        .target(name: "ParleyClientCore",
                dependencies: ["ParleyCore", "ParleyNet", "Signaling", "JSONWire", "HTTPWire", "WebSocketWire"],
                swiftSettings: strict),

        // Layer 5: the voice SDK (Voice, Call, CallInvite, …) on the client core, what an app links;
        // never imports the server.
        .target(name: "ParleyVoice",
                dependencies: ["ParleyClientCore", "ParleyCore", "WebRTC", "ICE", "Signaling", "ParleyAudio", "AudioCore",
                               "AudioDevices", "CallQuality", "JSONWire", "HTTPWire"],
                swiftSettings: strict),

        // The video SDK (the seed's Twilio Video API): rooms over room signaling and client
        // peer connections.
        .target(name: "ParleyVideo",
                dependencies: ["ParleyClientCore", "ParleyCore", "WebRTC", "ICE", "Signaling", "DataChannel", "ParleyAudio", "ParleyOpus", "AudioCore",
                               "VideoCore", "ParleyVPX", "VP8"],
                swiftSettings: strict),

        // The endpoint SDK (issue 19; the seed's Plivo iOS SDK v2): a standard SIP user agent
        // (registration, calls, SDES-SRTP audio through the audio engine) on the SIP stack.
        .target(name: "ParleyEndpoint",
                dependencies: ["SIP", "SIPWire", "SDP", "ParleyNet", "ParleyRTP", "ParleySRTP", "RTP", "RTCP", "ParleyAudio", "AudioCore",
                               "AudioDevices", "ParleyClientCore", "ParleyCrypto", "ParleyCore"],
                swiftSettings: strict),

        // Test support as a library, shared by the test targets and parley-bench: an in-process
        // platform with a token, built-product lookup, tone generation and analysis.
        // A virtual MonotonicClock for tests (no server dependency).
        .target(name: "ParleyTestClock", dependencies: ["ParleyCore"], swiftSettings: strict),
        .target(name: "ParleyTestSupport",
                dependencies: ["WebRTC", "ParleyOpus", "ParleyServer", "VoiceREST", "ParleyStore", "AccessToken", "ParleyAudio",
                               "AudioCore", "NetworkConditioner", "Signaling", "ParleyNet", "HTTPWire", "ParleyCrypto",
                               "ParleyCore", "TwiML", "WebSocketWire", "SpeechScoring", "RoomService", "ServerMedia", "SFU"],
                swiftSettings: strict),

        // Two-party SDK calls in one process, the pieces `parley demo` and `parley-bench
        // call-quality` share: an invite handler, the callee's recording device, tokens.
        .target(name: "CallHarness",
                dependencies: ["ParleyVoice", "ParleyServer", "ParleyStore", "AccessToken", "AudioCore", "AudioDevices", "ParleyCore"],
                swiftSettings: strict),

        // Layer 6: executables.
        .executableTarget(name: "ParleyServerMain", dependencies: ["ParleyServer", "ParleyNet", "ParleyCrypto", "ParleyCore", "ParleyStore"], swiftSettings: strict),
        .executableTarget(name: "ParleyCLI",
                          dependencies: ["ParleyCore", "ParleyCrypto", "ParleyStore", "AccessToken", "ParleyServer", "PlatformCore", "ParleyNet",
                                         "SIPCredentialsREST",
                                         "NetworkConditioner", "ParleyVoice", "AudioCore", "AudioDevices", "ParleyAudio", "JSONWire",
                                         "CallQuality", "ICE", "CallHarness", "SpeechScoring", "ParleyVideo", "VideoCore", "ParleyVPX",
                                         "ParleyEndpoint"],
                          swiftSettings: strict),
        .executableTarget(name: "ParleyBench",
                          dependencies: ["ParleyTestSupport", "ParleyCore", "ParleyNet", "HTTPWire", "WebSocketWire", "AccessToken", "TwiML",
                                         "ParleyServer", "PlatformCore", "ParleyStore", "WebRTC", "ParleySRTP", "ParleyCrypto",
                                         "STUN", "SDP", "ParleyAudio", "NetworkConditioner", "ParleyOpus", "Signaling", "JSONWire",
                                         "ParleyVoice", "CallHarness", "AudioDevices", "SpeechScoring", "DataChannel", "ServerMedia",
                                         "ParleyVPX", "VP8", "VideoCore", "ParleyVideo", "SIP", "SIPWire", "SIPGateway", "SIPMedia",
                                         "VoiceEngine"],
                          swiftSettings: strict),
        .executableTarget(name: "ParleyFuzz",
                          dependencies: ["HTTPWire", "WebSocketWire", "AccessToken", "STUN", "RTP", "RTCP", "ParleyRTP", "ParleySRTP", "SDP", "AudioCore",
                                         "ParleyAudio", "ParleyOpus", "TwiML", "Signaling", "VoiceREST", "VP8", "DataChannel",
                                         "JSONWire", "ParleyStore", "WebRTC", "ICE", "ParleyCrypto", "VideoREST", "ServerMedia", "SFU",
                                         "PlatformCore", "VideoCore", "ParleyVPX", "SIP", "SIPWire", "ParleyServer"],
                          swiftSettings: strict),

        // Tests.
        .testTarget(name: "ParleyTestClockTests", dependencies: ["ParleyTestClock", "ParleyCore"], swiftSettings: strict),
        .testTarget(name: "ParleyCoreTests", dependencies: ["ParleyCore"], swiftSettings: strict),
        .testTarget(name: "HTTPWireTests", dependencies: ["HTTPWire"], swiftSettings: strict),
        .testTarget(name: "VP8Tests", dependencies: ["VP8"], swiftSettings: strict),
        .testTarget(name: "VideoCoreTests", dependencies: ["VideoCore", "CV4L2"], swiftSettings: strict),
        .testTarget(name: "ParleyVPXTests", dependencies: ["ParleyVPX", "VideoCore", "VP8"], swiftSettings: strict),
        .testTarget(name: "DataChannelTests", dependencies: ["DataChannel"], swiftSettings: strict),
        .testTarget(name: "SCTPTests", dependencies: ["SCTP", "DataChannel"], swiftSettings: strict),
        .testTarget(name: "SFUTests", dependencies: ["SFU"], swiftSettings: strict),
        .testTarget(name: "SIPTests", dependencies: ["SIP", "SDP", "SIPWire", "ParleyNet"], swiftSettings: strict),
        .testTarget(name: "SIPMediaTests", dependencies: ["SIPMedia", "ParleyNet", "ParleyRTP", "ParleySRTP", "RTP", "ParleyCore"],
                    swiftSettings: strict),
        .testTarget(name: "MediaContainersTests", dependencies: ["MediaContainers", "ParleyOpus", "ParleyVPX", "VideoCore", "ParleyCore",
                                                                 "ParleyTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "WebSocketWireTests", dependencies: ["WebSocketWire"], swiftSettings: strict),
        .testTarget(name: "WireKitTests", dependencies: ["WireKit"], swiftSettings: strict),
        .testTarget(name: "JSONWireTests", dependencies: ["JSONWire"], swiftSettings: strict),
        .testTarget(name: "STUNTests", dependencies: ["STUN", "WireKit", "ParleyCrypto"], swiftSettings: strict),
        .testTarget(name: "RTPTests", dependencies: ["RTP", "WireKit"], swiftSettings: strict),
        .testTarget(name: "RTCPTests", dependencies: ["RTCP", "WireKit"], swiftSettings: strict),
        .testTarget(name: "SDPTests", dependencies: ["SDP"], swiftSettings: strict),
        .testTarget(name: "SIPWireTests", dependencies: ["SIPWire"], swiftSettings: strict),
        .testTarget(name: "TwiMLTests", dependencies: ["TwiML"], swiftSettings: strict),
        .testTarget(name: "SignalingTests", dependencies: ["Signaling", "ParleyCore", "JSONWire"], swiftSettings: strict),
        .testTarget(name: "PushNotificationsTests",
                    dependencies: ["PushNotifications", "ParleyNet", "ParleyCrypto", "CNGHTTP2", "HTTPWire", "AccessToken",
                                   "ParleyCore", "ParleyTestSupport", "JSONWire", "Signaling"],
                    swiftSettings: strict),
        .testTarget(name: "AudioCoreTests", dependencies: ["AudioCore", "ParleyCore", "ParleyTestSupport"], swiftSettings: strict),
        .testTarget(name: "CallQualityTests", dependencies: ["CallQuality"], swiftSettings: strict),
        .testTarget(name: "NetworkConditionerTests", dependencies: ["NetworkConditioner"], swiftSettings: strict),
        .testTarget(name: "BandwidthEstimationTests", dependencies: ["BandwidthEstimation", "NetworkConditioner"], swiftSettings: strict),
        .testTarget(name: "ParleyAudioTests",
                    dependencies: ["ParleyAudio", "AudioCore", "ParleyOpus", "RTP", "NetworkConditioner", "CallQuality",
                                   "ParleyCore", "ParleyTestSupport", "AudioDevices"],
                    swiftSettings: strict),
        .testTarget(name: "AudioDevicesTests", dependencies: ["AudioDevices", "AudioCore", "ParleyTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "ICETests", dependencies: ["ICE", "STUN", "ParleyCrypto", "ParleyCore"], swiftSettings: strict),
        .testTarget(name: "ParleyCryptoTests", dependencies: ["ParleyCrypto", "ParleySRTP", "ParleyOpus", "ParleyMP3", "ParleyTestSupport", "ParleyCore"],
                    swiftSettings: strict),
        .testTarget(name: "ParleyClientCoreTests", dependencies: ["ParleyClientCore", "ParleyCore", "HTTPWire"],
                    swiftSettings: strict),
        .testTarget(name: "ParleyVoiceTests",
                    dependencies: ["ParleyVoice", "ParleyClientCore", "ParleyTestSupport", "ParleyServer", "ParleyStore",
                                   "AccessToken", "Signaling", "AudioCore", "AudioDevices", "ParleyNet",
                                   "HTTPWire", "JSONWire", "ParleyCore", "CallQuality", "ICE", "ParleyAudio", "PlatformCore", "WebRTC"],
                    swiftSettings: strict),
        .testTarget(name: "ParleyVideoTests",
                    dependencies: ["ParleyVideo", "ParleyTestSupport", "ParleyServer", "Signaling", "ParleyCore", "AccessToken", "WebRTC", "ICE", "ParleyNet", "HTTPWire", "ParleyClientCore", "ParleyStore", "AudioCore", "AudioDevices", "VideoCore"],
                    swiftSettings: strict),
        .testTarget(name: "ParleySRTPTests", dependencies: ["ParleySRTP", "ParleyTestSupport", "ParleyCore"], swiftSettings: strict),
        .testTarget(name: "ParleyRTPTests", dependencies: ["ParleyRTP", "ParleySRTP", "RTP", "RTCP"], swiftSettings: strict),
        .testTarget(name: "AccessTokenTests", dependencies: ["AccessToken", "ParleyCore", "ParleyCrypto", "JSONWire"],
                    swiftSettings: strict),
        .testTarget(name: "ParleyStoreTests", dependencies: ["ParleyStore", "ParleyTestSupport", "ParleyCore"], swiftSettings: strict),
        .testTarget(name: "ParleyNetTests", dependencies: ["ParleyNet", "HTTPWire", "WebSocketWire",
                                                           "NetworkConditioner", "ParleyTestSupport", "ParleyCore", "ParleyCrypto"],
                    swiftSettings: strict),
        .testTarget(name: "ParleyServerTests",
                    dependencies: ["ParleyTestSupport", "ParleyServer", "VoiceEngine", "VoiceREST", "PlatformCore", "ServerMedia",
                                   "ParleyNet", "ParleyStore",
                                   "AccessToken", "HTTPWire", "Signaling", "TwiML", "WebSocketWire", "WebRTC",
                                   "AudioCore", "JSONWire", "ParleyTestClock", "ParleyCore", "ICE", "NetworkConditioner", "RoomService",
                                   "ParleyCrypto", "SIPGateway"],
                    swiftSettings: strict),
        .testTarget(name: "RoomServiceTests",
                    dependencies: ["RoomService", "VideoREST", "ParleyTestSupport", "ParleyTestClock", "PlatformCore", "ParleyStore",
                                   "ParleyNet", "ParleyCore", "SFU", "Signaling", "ServerMedia", "ParleyOpus"],
                    swiftSettings: strict),
        .testTarget(name: "WebRTCTests",
                    dependencies: ["ParleyTestSupport", "WebRTC", "ICE", "STUN", "SDP", "RTP", "RTCP", "ParleyRTP", "ParleyCrypto", "ParleySRTP", "ParleyNet",
                                   "DataChannel", "SCTP",
                                   "ParleyOpus", "ParleyServer", "HTTPWire", "ParleyCore", "SFU", "VP8", "ParleyVPX", "VideoCore"],
                    swiftSettings: strict),
        // The `parley` command line as users run it: child processes against a parley-server process.
        .testTarget(name: "ParleyCLITests",
                    dependencies: ["ParleyTestSupport", "Signaling", "AudioCore", "ParleyStore", "SpeechScoring", "ParleyCore",
                                   "ParleyVideo", "VideoCore", "AudioDevices", "ParleyServer", "AccessToken"],
                    swiftSettings: strict),
        .testTarget(name: "ParleyEndpointTests",
                    dependencies: ["ParleyEndpoint", "ParleyTestClock", "SIP", "SIPWire", "ParleyCore"],
                    swiftSettings: strict),
        .testTarget(name: "SIPCredentialsRESTTests",
                    dependencies: ["SIPCredentialsREST", "ParleyStore", "HTTPWire", "JSONWire"],
                    swiftSettings: strict),
        .testTarget(name: "VideoRESTTests",
                    dependencies: ["VideoREST", "ParleyStore", "ParleyCore", "SFU", "HTTPWire", "JSONWire"],
                    swiftSettings: strict),
        .testTarget(name: "InteropTests",
                    dependencies: ["ParleyTestSupport", "ParleyServer", "VoiceREST", "ParleyNet", "AccessToken", "ParleyStore", "ParleyCrypto", "WebRTC",
                                   "HTTPWire", "ICE", "ParleyOpus", "ParleyAudio", "NetworkConditioner", "Signaling",
                                   "AudioCore", "JSONWire", "ParleyCore", "WebSocketWire", "ParleyVideo", "VideoCore", "AudioDevices", "SIP", "SIPWire", "SIPGateway",
                                   "ParleyEndpoint"],
                    swiftSettings: strict),
    ]
)
