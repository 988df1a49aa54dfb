/// An ICE server of a call or a room (the seeds' `TVOIceServer` / `IceServer`, W3C `RTCIceServer`
/// with one URL): STUN (`stun:IP:PORT`) or TURN (`turn:IP:PORT[?transport=udp]`), IP literals
/// (no DNS lookups). Which candidates may be used is ICE's `ICETransportPolicy` (`.all`, or
/// `.relay` for TURN relays only, which hides the device's addresses). Shared by the voice and
/// video SDKs.
public struct ICEServer: Sendable, Hashable {
    public var urlString: String
    public var username: String?
    public var password: String?

    public init(urlString: String, username: String? = nil, password: String? = nil) {
        self.urlString = urlString
        self.username = username
        self.password = password
    }
}
