/// What an `ICELiteAgent` asks its owner to do, in order.
public enum ICEAction: Sendable, Hashable {
    /// Send `bytes` to `to` from the socket the triggering datagram arrived on.
    case send([UInt8], to: ICETransportAddress)
    /// The controlling peer nominated the pair ending at this address (RFC 8445 §7.3.1.5): send
    /// media there from now on. Repeated after an ICE restart or when the peer renominates.
    case selected(ICETransportAddress)
    /// The connection state changed.
    case stateChanged(ICEConnectionState)
}
