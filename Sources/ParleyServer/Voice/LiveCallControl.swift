/// What the Calls REST API may do to a live call (`POST /Calls/{Sid}.json`).
public protocol LiveCallControl: Sendable {
    /// Ends the call (`Status=completed`, or `canceled` while it rings). False if no live call has `callSid`.
    func hangUp(callSid: String, status: String) async -> Bool
    /// Stops the call's current TwiML and continues with the document at `url` (`Url`, `Method`).
    func redirect(callSid: String, url: String, method: String) async -> Bool
}
