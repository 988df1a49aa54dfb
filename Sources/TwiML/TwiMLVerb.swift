/// One verb of a `<Response>`, in Twilio's vocabulary (https://www.twilio.com/docs/voice/twiml).
public enum TwiMLVerb: Sendable, Hashable {
    case dial(TwiMLDial)
    case say(TwiMLSay)
    case play(TwiMLPlay)
    case pause(TwiMLPause)
    case gather(TwiMLGather)
    case record(TwiMLRecord)
    case hangup
    case reject(TwiMLRejectReason)
    case redirect(TwiMLRedirect)
}

/// The HTTP method Twilio uses for an action or callback URL.
public enum TwiMLMethod: String, Sendable, Hashable, CaseIterable {
    case get = "GET"
    case post = "POST"
}

/// `<Say>`: text to speech.
public struct TwiMLSay: Sendable, Hashable {
    /// The text to speak (whitespace at both ends trimmed; SSML markup flattened to its text).
    public var text: String
    /// The `voice` attribute as given (`man`, `woman`, `alice`, `Polly.Joanna`, …); nil for the default.
    public var voice: String?
    /// The `language` attribute, e.g. `en-US`; nil for the default.
    public var language: String?
    /// How many times to speak; 0 repeats until the call ends (Twilio stops after 1000). Default 1.
    public var loop: Int

    public init(text: String, voice: String? = nil, language: String? = nil, loop: Int = 1) {
        self.text = text
        self.voice = voice
        self.language = language
        self.loop = loop
    }
}

/// `<Play>`: an audio file by URL, or DTMF tones (`digits`, `w` waits half a second).
public struct TwiMLPlay: Sendable, Hashable {
    /// The audio URL as written (possibly relative); nil when `digits` is set.
    public var url: String?
    /// How many times to play; 0 repeats until the call ends (Twilio stops after 1000). Default 1.
    public var loop: Int
    /// DTMF digits to play instead of a file: `0-9`, `*`, `#`, `w`, `W`.
    public var digits: String?

    public init(url: String? = nil, loop: Int = 1, digits: String? = nil) {
        self.url = url
        self.loop = loop
        self.digits = digits
    }
}

/// `<Pause length>`: silence. As the first verb it delays answering the call.
public struct TwiMLPause: Sendable, Hashable {
    /// Seconds; default 1.
    public var length: Int

    public init(length: Int = 1) { self.length = length }
}

/// `<Reject reason>`: refuse the call without answering it.
public enum TwiMLRejectReason: String, Sendable, Hashable, CaseIterable {
    case rejected
    case busy
}

/// `<Redirect method>url</Redirect>`: continue with the TwiML at another URL.
public struct TwiMLRedirect: Sendable, Hashable {
    public var url: String
    /// Default POST.
    public var method: TwiMLMethod

    public init(url: String, method: TwiMLMethod = .post) {
        self.url = url
        self.method = method
    }
}

/// Trimming of silence at both ends of a recording (`trim` on `<Record>` and `<Dial>`).
public enum TwiMLTrim: String, Sendable, Hashable, CaseIterable {
    case trimSilence = "trim-silence"
    case doNotTrim = "do-not-trim"
}

/// `<Record>`: record the caller.
public struct TwiMLRecord: Sendable, Hashable {
    /// Seconds; default 3600.
    public var maxLength: Int
    /// Seconds of silence that end the recording; default 5.
    public var timeout: Int
    /// Keys that end the recording; default `1234567890*#`. Empty disables keys.
    public var finishOnKey: String
    /// Where to fetch the next document; nil means the current document URL.
    public var action: String?
    /// Default POST.
    public var method: TwiMLMethod
    /// Default true.
    public var playBeep: Bool
    /// Default trim-silence.
    public var trim: TwiMLTrim
    public var recordingStatusCallback: String?
    /// Default POST.
    public var recordingStatusCallbackMethod: TwiMLMethod

    public init(maxLength: Int = 3600, timeout: Int = 5, finishOnKey: String = "1234567890*#", action: String? = nil,
                method: TwiMLMethod = .post, playBeep: Bool = true, trim: TwiMLTrim = .trimSilence,
                recordingStatusCallback: String? = nil, recordingStatusCallbackMethod: TwiMLMethod = .post) {
        self.maxLength = maxLength
        self.timeout = timeout
        self.finishOnKey = finishOnKey
        self.action = action
        self.method = method
        self.playBeep = playBeep
        self.trim = trim
        self.recordingStatusCallback = recordingStatusCallback
        self.recordingStatusCallbackMethod = recordingStatusCallbackMethod
    }
}
