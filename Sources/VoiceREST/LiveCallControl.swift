import ParleyCore
import ParleyStore
import TwiML

/// What the Calls REST API may do to calls (`POST Calls.json`, `POST /Calls/{Sid}.json`).
public protocol LiveCallControl: Sendable {
    /// Ends the call (`Status=completed`, or `canceled` while it rings). False if no live call has `callSid`.
    func hangUp(callSid: String, status: String) async -> Bool
    /// Stops the call's current TwiML and continues with the document at `url` (`Url`, `Method`).
    func redirect(callSid: String, url: String, method: String) async -> Bool
    /// Stops the call's current TwiML and continues with `document` (`Twiml`). False if no live
    /// call has `callSid`.
    func replaceTwiML(callSid: String, document: TwiMLResponse) async -> Bool
    /// Creates an `outbound-api` call that rings `request.to`; returns its row as created.
    func createCall(_ request: OutboundCallRequest) async throws(ParleyError) -> CallRecord
    /// Stops ringing a call created by `createCall` that has not been answered: its invitations
    /// are cancelled and it ends `canceled`. False if it is not such a call (answered, ended, unknown).
    func cancelRinging(callSid: String) async -> Bool
}

/// A call the Calls REST API creates (`POST Calls.json`): the server rings `to`'s client identity
/// as a `<Dial><Client>` would and, once answered, runs the call's TwiML on that leg.
public struct OutboundCallRequest: Sendable, Equatable {
    /// Where the call's first document comes from.
    public enum Instructions: Sendable, Equatable {
        /// Fetched from `url` with `method` when the callee answers (`Url`, `Method`, or an application's Voice URL).
        case url(String, method: String)
        /// Inline (`Twiml`): runs when the callee answers, nothing fetched.
        case twiml(TwiMLResponse)
    }

    public var accountSid: String
    /// `client:<identity>`.
    public var to: String
    public var from: String
    public var instructions: Instructions
    /// The application whose Voice URL gave `instructions` (`ApplicationSid`), for webhooks' `ApplicationSid`.
    public var applicationSid: String?
    public var statusCallback: String?
    public var statusCallbackMethod: String
    /// `initiated`, `ringing`, `answered`, `completed`; empty means `completed` only (the vendor's default).
    public var statusCallbackEvents: [String]
    /// Seconds the callee may ring (`Timeout`).
    public var timeout: Int
    /// Keys to press once a number or SIP callee answers (`SendDigits`: `0-9`, `*`, `#`, `w` for 0.5 s).
    public var sendDigits: String?
    /// The outbound trunk a number goes through (`Byoc`: a `--sip-trunk` name); nil: the first.
    public var trunk: String?

    public init(accountSid: String, to: String, from: String, instructions: Instructions, applicationSid: String? = nil,
                statusCallback: String? = nil, statusCallbackMethod: String = "POST", statusCallbackEvents: [String] = [],
                timeout: Int = 60) {
        self.accountSid = accountSid
        self.to = to
        self.from = from
        self.instructions = instructions
        self.applicationSid = applicationSid
        self.statusCallback = statusCallback
        self.statusCallbackMethod = statusCallbackMethod
        self.statusCallbackEvents = statusCallbackEvents
        self.timeout = timeout
    }
}
