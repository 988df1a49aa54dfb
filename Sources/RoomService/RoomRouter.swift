import ParleyCore

/// Which node holds a room (LiveKit's router): room signaling and WHIP/WHEP ask it for the
/// `RoomService` of the room a request names, and keep talking to that service for the
/// participant's lifetime. A router for several nodes (rooms placed through a shared store,
/// requests forwarded to the node that holds them) can replace the local one without touching
/// the SFU or the service.
public protocol RoomRouter: Sendable {
    /// The service that holds the account's room `room` (a unique name or `RM…` SID), or that
    /// would create it on a first join.
    /// - Throws: 53106 when no node this one reaches holds it.
    func service(accountSid: String, room: String) async throws(ParleyError) -> RoomService
}

/// One node: every room is on this node's service.
public struct LocalRoomRouter: RoomRouter {
    /// This node's service.
    public let rooms: RoomService

    public init(rooms: RoomService) {
        self.rooms = rooms
    }

    public func service(accountSid: String, room: String) async throws(ParleyError) -> RoomService { rooms }
}
