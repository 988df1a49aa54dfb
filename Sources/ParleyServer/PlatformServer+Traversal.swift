import Foundation
import ICE
import Signaling

extension PlatformServer {
    /// What `room.joined` carries: the issuer's entries for the joining identity, with TURN
    /// credentials minted per join (`EXPIRY:IDENTITY`).
    static func roomICEServers(_ issuer: ICEServerIssuer?) -> @Sendable (String) -> [RoomICEServer] {
        guard let issuer, !issuer.isEmpty else { return { _ in [] } }
        return { identity in
            issuer.entries(user: identity, now: UInt64(Date().timeIntervalSince1970)).map {
                RoomICEServer(urls: $0.urls, username: $0.username, credential: $0.credential)
            }
        }
    }
}
