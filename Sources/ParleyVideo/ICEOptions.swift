import ICE
import ParleyCore
import WebRTC

/// How the room's media connections gather and use candidates (the seed's `IceOptions`): extra
/// STUN/TURN servers and the transport policy. The group room's connection to the server uses
/// them; in a peer-to-peer room each peer connection uses them after the servers the server
/// handed out with `room.joined`. `.relay` signals and pairs only TURN-relayed candidates
/// (without a TURN server here or from the server, media cannot connect: 53405).
public struct ICEOptions: Sendable, Hashable {
    /// One STUN or TURN server (the seed's `IceServer`; the voice SDK's `ICEServer` has the same
    /// fields), W3C `RTCIceServer` with one URL.
    public struct Server: Sendable, Hashable {
        /// `stun:IP:PORT` or `turn:IP:PORT[?transport=udp]`, IP literals (no DNS lookups).
        public var urlString: String
        public var username: String?
        public var password: String?

        public init(urlString: String, username: String? = nil, password: String? = nil) {
            self.urlString = urlString
            self.username = username
            self.password = password
        }
    }

    /// STUN and TURN servers.
    public var servers: [Server]
    public var transportPolicy: ICETransportPolicy

    public init(servers: [Server] = [], transportPolicy: ICETransportPolicy = .all) {
        self.servers = servers
        self.transportPolicy = transportPolicy
    }

    /// The servers as the peer connection takes them.
    /// - Throws: 53400 for a URL it cannot use.
    func peerServers() throws(ParleyError) -> [PeerConnection.ICEServer] {
        try servers.map { server throws(ParleyError) in
            try PeerConnection.ICEServer(url: server.urlString, username: server.username, password: server.password)
        }
    }
}
