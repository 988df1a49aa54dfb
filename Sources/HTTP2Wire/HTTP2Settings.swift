/// A SETTINGS parameter identifier (RFC 9113 §6.5.2). Unknown identifiers are kept and ignored.
public struct HTTP2SettingID: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let headerTableSize = HTTP2SettingID(rawValue: 0x1)
    public static let enablePush = HTTP2SettingID(rawValue: 0x2)
    public static let maxConcurrentStreams = HTTP2SettingID(rawValue: 0x3)
    public static let initialWindowSize = HTTP2SettingID(rawValue: 0x4)
    public static let maxFrameSize = HTTP2SettingID(rawValue: 0x5)
    public static let maxHeaderListSize = HTTP2SettingID(rawValue: 0x6)
}

/// One identifier/value pair of a SETTINGS frame (§6.5.1).
public struct HTTP2Setting: Sendable, Equatable {
    public var id: HTTP2SettingID
    public var value: UInt32

    public init(_ id: HTTP2SettingID, _ value: UInt32) {
        self.id = id
        self.value = value
    }
}

/// The settings one endpoint has announced, starting from the initial values of §6.5.2.
public struct HTTP2Settings: Sendable, Equatable {
    /// The largest flow-control window (§6.9.1): 2^31 - 1.
    public static let maxWindowSize: UInt32 = 0x7FFF_FFFF
    /// The smallest and largest SETTINGS_MAX_FRAME_SIZE (§6.5.2).
    public static let minMaxFrameSize: UInt32 = 16_384
    public static let maxMaxFrameSize: UInt32 = 0xFF_FFFF

    /// SETTINGS_HEADER_TABLE_SIZE: the HPACK dynamic table limit the sender's decoder allows.
    public var headerTableSize: UInt32 = 4096
    /// SETTINGS_ENABLE_PUSH.
    public var enablePush: Bool = true
    /// SETTINGS_MAX_CONCURRENT_STREAMS; nil is unlimited (the initial value).
    public var maxConcurrentStreams: UInt32?
    /// SETTINGS_INITIAL_WINDOW_SIZE for new streams.
    public var initialWindowSize: UInt32 = 65_535
    /// SETTINGS_MAX_FRAME_SIZE: the largest frame payload the sender accepts.
    public var maxFrameSize: UInt32 = 16_384
    /// SETTINGS_MAX_HEADER_LIST_SIZE; nil is unlimited (the initial value).
    public var maxHeaderListSize: UInt32?

    public init() {}

    /// Applies a received SETTINGS frame in order (§6.5.3), validating each value (§6.5.2):
    /// ENABLE_PUSH other than 0 or 1 and a MAX_FRAME_SIZE outside its range are PROTOCOL_ERROR,
    /// an INITIAL_WINDOW_SIZE above 2^31-1 is FLOW_CONTROL_ERROR. Unknown identifiers are ignored.
    public mutating func apply(_ settings: [HTTP2Setting]) throws(HTTP2Error) {
        for setting in settings {
            switch setting.id {
            case .headerTableSize: headerTableSize = setting.value
            case .enablePush:
                guard setting.value <= 1 else { throw .connection(.protocolError, "SETTINGS_ENABLE_PUSH is \(setting.value)") }
                enablePush = setting.value == 1
            case .maxConcurrentStreams: maxConcurrentStreams = setting.value
            case .initialWindowSize:
                guard setting.value <= Self.maxWindowSize else {
                    throw .connection(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE is \(setting.value)")
                }
                initialWindowSize = setting.value
            case .maxFrameSize:
                guard (Self.minMaxFrameSize...Self.maxMaxFrameSize).contains(setting.value) else {
                    throw .connection(.protocolError, "SETTINGS_MAX_FRAME_SIZE is \(setting.value)")
                }
                maxFrameSize = setting.value
            case .maxHeaderListSize: maxHeaderListSize = setting.value
            default: continue
            }
        }
    }

    /// The parameters that differ from the initial values, for a SETTINGS frame announcing these settings.
    public var nonDefaultParameters: [HTTP2Setting] {
        let initial = HTTP2Settings()
        var out: [HTTP2Setting] = []
        if headerTableSize != initial.headerTableSize { out.append(HTTP2Setting(.headerTableSize, headerTableSize)) }
        if enablePush != initial.enablePush { out.append(HTTP2Setting(.enablePush, enablePush ? 1 : 0)) }
        if let maxConcurrentStreams { out.append(HTTP2Setting(.maxConcurrentStreams, maxConcurrentStreams)) }
        if initialWindowSize != initial.initialWindowSize { out.append(HTTP2Setting(.initialWindowSize, initialWindowSize)) }
        if maxFrameSize != initial.maxFrameSize { out.append(HTTP2Setting(.maxFrameSize, maxFrameSize)) }
        if let maxHeaderListSize { out.append(HTTP2Setting(.maxHeaderListSize, maxHeaderListSize)) }
        return out
    }
}
