import AudioCore
import ParleyNet
import SIP
import SIPWire

/// ``EndpointOptions`` checked and resolved: the registrar's URI and address, our address.
struct UserAgentSettings: Sendable {
    var registrarURI: SIPURI
    var registrarHost: String
    var registrarAddress: SocketAddress
    var transport: EndpointOptions.Transport
    /// The address we bind and advertise (Contact, Via, SDP).
    var localAddress: String
    var localHost: SIPHost
    var timers: TransactionTimerValues
    var debug: Bool
    var encryption: SIPMediaEncryption
    var maxAverageBitrate: Int?
    var tlsTrustRootsPath: String?
    var audioDevice: (any AudioDevice)?

    init(_ options: EndpointOptions) throws(EndpointError) {
        var text = options.registrar.trimmingPrefix(" ")
        if !text.lowercased().hasPrefix("sip:") && !text.lowercased().hasPrefix("sips:") { text = "sip:" + text }
        guard var uri = try? SIPURI(parsing: String(text)), uri.user == nil else {
            throw .invalid("registrar \"\(options.registrar)\": expected sip:HOST[:PORT]")
        }
        if uri.isSecure, options.transport != .tls { throw .invalid("a sips: registrar needs the tls transport") }
        uri.parameters = []
        uri.headers = []
        registrarURI = uri
        let host: String = switch uri.host {
        case .hostname(let name): name
        case .ipv4(let address): address
        case .ipv6(let address): address
        }
        registrarHost = host
        let port = Int(uri.port ?? (options.transport == .tls ? 5061 : 5060))
        do { registrarAddress = try SocketAddress.resolve(host: host, port: port) } catch {
            throw EndpointError(code: 503, reason: "cannot resolve the registrar \(host): \(error)")
        }
        transport = options.transport
        if let given = options.localAddress {
            switch SIPHost(parsing: given.contains(":") ? "[\(given)]" : given) {
            case .ipv4?, .ipv6?: break
            default: throw .invalid("local address \"\(given)\" is not an IP address")
            }
            localAddress = given
        } else if host.hasPrefix("127.") || host == "localhost" || host == "::1" {
            localAddress = registrarAddress.isIPv6 ? "::1" : "127.0.0.1"
        } else {
            let wanted = NetworkInterfaces.addresses(ipv6: registrarAddress.isIPv6).first { !$0.isLoopback }
            localAddress = wanted?.ip ?? "127.0.0.1"
        }
        localHost = SIPHost(parsing: localAddress.contains(":") ? "[\(localAddress)]" : localAddress) ?? .ipv4("127.0.0.1")
        timers = options.timers
        debug = options.debug
        encryption = options.mediaEncryption
        if let bitrate = options.maxAverageBitrate, !EndpointOptions.bitrateRange.contains(bitrate) {
            throw .invalid("maxAverageBitrate \(bitrate): expected 8000–48000 bit/s")
        }
        maxAverageBitrate = options.maxAverageBitrate
        tlsTrustRootsPath = options.tlsTrustRootsPath
        audioDevice = options.audioDevice
    }
}
