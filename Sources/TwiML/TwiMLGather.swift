/// `<Gather>`: collect DTMF digits (also while its nested prompts play).
public struct TwiMLGather: Sendable, Hashable {
    /// Stop after this many digits; nil (the default) means no limit.
    public var numDigits: Int?
    /// The key that submits the digits; default `#`. Empty disables it.
    public var finishOnKey: String
    /// Seconds to wait after the prompts finish or after the last digit; default 5.
    public var timeout: Int
    /// Where to send the digits; nil means the current document URL.
    public var action: String?
    /// Default POST.
    public var method: TwiMLMethod
    /// Accepted input; default `dtmf`. Parley only collects DTMF, so `speech` alone never yields input.
    public var input: TwiMLGatherInput
    /// Request the action even when no digits were entered; default false (fall through to the next verb).
    public var actionOnEmptyResult: Bool
    /// Nested `<Say>`, `<Play>` and `<Pause>`, played in order while digits are collected.
    public var prompts: [TwiMLGatherPrompt]

    public init(numDigits: Int? = nil, finishOnKey: String = "#", timeout: Int = 5, action: String? = nil,
                method: TwiMLMethod = .post, input: TwiMLGatherInput = .dtmf, actionOnEmptyResult: Bool = false,
                prompts: [TwiMLGatherPrompt] = []) {
        self.numDigits = numDigits
        self.finishOnKey = finishOnKey
        self.timeout = timeout
        self.action = action
        self.method = method
        self.input = input
        self.actionOnEmptyResult = actionOnEmptyResult
        self.prompts = prompts
    }
}

/// The `input` attribute of `<Gather>`: `dtmf`, `speech` or `dtmf speech`.
public struct TwiMLGatherInput: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let dtmf = TwiMLGatherInput(rawValue: 1)
    public static let speech = TwiMLGatherInput(rawValue: 2)

    /// The attribute value, e.g. `dtmf speech`.
    public var attributeValue: String {
        [contains(.dtmf) ? "dtmf" : nil, contains(.speech) ? "speech" : nil].compactMap { $0 }.joined(separator: " ")
    }
}

/// A verb nested in `<Gather>`.
public enum TwiMLGatherPrompt: Sendable, Hashable {
    case say(TwiMLSay)
    case play(TwiMLPlay)
    case pause(TwiMLPause)
}
