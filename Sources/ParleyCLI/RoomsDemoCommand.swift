import AccessToken
import Foundation
import ParleyServer
import ParleyStore
import ParleyVideo

/// `parley demo rooms` (what `make demo-rooms` runs): a server on loopback with an in-memory
/// store, and alice, bob and carol in one group room through the video SDK in this process, each
/// publishing a tone and a moving test pattern; the room's events and figures, and a mosaic PNG
/// of what carol saw. SIGINT or SIGTERM leaves the room and stops the server (exit 130 or 143).
enum RoomsDemoCommand {
    static func run(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, options: ["out", "seconds"])
        _ = try parsed.positionals(0, "no positional arguments")
        let out = parsed.value("out") ?? ".demo-rooms"
        let seconds = try parsed.seconds("seconds") ?? .seconds(8)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.mediaPort = 0
        configuration.recordingsDirectory = out + "/recordings"
        let server = try PlatformServer(configuration: configuration, store: InMemoryAccountStore())
        try server.start()
        let base = "http://\(configuration.host):\(server.port)"
        Video.servers = ["demo-rooms": base]
        Video.edge = "demo-rooms"
        let key = server.defaultCredentials
        let tokens = try RoomsDemo.cast.map { participant in
            try AccessTokenBuilder.mint(accountSid: key.account.sid, apiKeySid: key.apiKey.sid, apiSecret: key.apiKey.secret,
                                        identity: participant.identity, ttl: 3600, grants: [.video(VideoGrant(room: RoomsDemo.roomName))])
        }
        DemoCommand.section("parley-server on \(base); room \(RoomsDemo.roomName): alice, bob and carol, a tone and a test pattern each")
        Interruption.shared.catchSignals()
        return CallCommand.blocking {
            let result = await RoomsDemo(tokens: tokens, seconds: seconds, mosaicPath: out + "/carol-mosaic.png").run()
            await server.shutdown()
            return Interruption.shared.caughtSignal.map(Interruption.status(for:)) ?? result
        }
    }
}
