import ICE
import ParleyClientCore
import ParleyCore
import WebRTC

/// How the room's media connections gather and use candidates (the seed's `IceOptions`): extra
/// STUN/TURN servers and the transport policy. The group room's connection to the server uses
/// them; in a peer-to-peer room each peer connection uses them after the servers the server
/// handed out with `room.joined`. `.relay` signals and pairs only TURN-relayed candidates
/// (without a TURN server here or from the server, media cannot connect: 53405).
public struct ICEOptions: Sendable, Hashable {
    /// STUN (`stun:IP:PORT`) and TURN (`turn:IP:PORT[?transport=udp]`) servers, IP literals.
    public var servers: [ICEServer]
    public var transportPolicy: ICETransportPolicy

    public init(servers: [ICEServer] = [], transportPolicy: ICETransportPolicy = .all) {
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
