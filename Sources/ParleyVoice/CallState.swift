/// Where a call is (the seed's `TVOCallState`).
public enum CallState: String, Sendable, Hashable, CaseIterable {
    case connecting, ringing, connected, reconnecting, disconnected
}
