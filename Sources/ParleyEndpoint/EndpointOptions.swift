import AudioCore
import ParleyCore
import SIP

/// How an ``Endpoint`` reaches its SIP server and handles audio: the seed's `PlivoEndpoint`
/// options (`debug`, `maxAverageBitrate`, the audio device) plus what a standard SIP user agent
/// needs to be told, since it is not tied to one vendor's domain: the registrar and transport.
public struct EndpointOptions: Sendable {
    /// The SIP transport of registration and calls (RFC 3261 §18).
    public enum Transport: String, Sendable, CaseIterable {
        case udp, tcp, tls
    }

    /// The registrar and outbound proxy: `sip:HOST[:PORT]`, `sips:HOST[:PORT]` or `HOST[:PORT]`
    /// (port 5060, 5061 for TLS). Its host is the domain of our address of record.
    public var registrar: String
    public var transport: Transport
    /// Logs SIP messages and media events (the seed's `debug`).
    public var debug: Bool
    /// The Opus encoder's average bitrate cap in bit/s, 8,000–48,000 (the seed's `maxAverageBitrate`).
    public var maxAverageBitrate: Int?
    /// The microphone and speaker of calls; silence in and nothing out when nil.
    public var audioDevice: (any AudioDevice)?
    /// The local IP address to bind and to advertise in Contact, Via and SDP; by default
    /// 127.0.0.1 for a loopback registrar, else the first non-loopback interface address.
    public var localAddress: String?
    /// SDES-SRTP (RFC 4568): `optional` offers keys on RTP/AVP and takes SRTP whenever the far
    /// end answers or offers keys; `required` offers RTP/SAVP only; `none` plain RTP.
    public var mediaEncryption: SIPMediaEncryption
    /// A PEM bundle of roots that TLS certificates are checked against (the system's by default).
    public var tlsTrustRootsPath: String?
    /// RFC 3261's T1, T2, T4.
    public var timers: TransactionTimerValues
    /// Where delegate callbacks run; `DelegateQueue.default` when nil.
    public var delegateQueueLabel: String?

    public init(registrar: String, transport: Transport = .udp, debug: Bool = false, maxAverageBitrate: Int? = nil,
                audioDevice: (any AudioDevice)? = nil, localAddress: String? = nil, mediaEncryption: SIPMediaEncryption = .optional,
                tlsTrustRootsPath: String? = nil, timers: TransactionTimerValues = .rfc3261) {
        self.registrar = registrar
        self.transport = transport
        self.debug = debug
        self.maxAverageBitrate = maxAverageBitrate
        self.audioDevice = audioDevice
        self.localAddress = localAddress
        self.mediaEncryption = mediaEncryption
        self.tlsTrustRootsPath = tlsTrustRootsPath
        self.timers = timers
    }

    /// The bitrate range the seed's SDK takes.
    public static let bitrateRange = 8_000...48_000
}
