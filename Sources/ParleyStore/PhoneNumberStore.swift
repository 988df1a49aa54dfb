/// Twilio's `IncomingPhoneNumbers`: a number a trunk delivers calls for, and the application its
/// calls run (`VoiceUrl`). `SQLiteAccountStore` persists them; `InMemoryAccountStore` is the twin.
public protocol PhoneNumberStore: Sendable {
    /// Creates a number under an existing account (`.notFound` otherwise; `.conflict` when any
    /// account has the number).
    func createPhoneNumber(_ draft: PhoneNumberDraft, accountSid: String) throws(StoreError) -> IncomingPhoneNumber
    func phoneNumber(sid: String) throws(StoreError) -> IncomingPhoneNumber?
    /// The number, of any account (E.164 as stored).
    func phoneNumber(number: String) throws(StoreError) -> IncomingPhoneNumber?
    /// The account's numbers, oldest first; `phoneNumber` filters exactly when given.
    func phoneNumbers(accountSid: String, phoneNumber: String?) throws(StoreError) -> [IncomingPhoneNumber]
    /// Replaces the draft (`.notFound` if absent, `.conflict` for a number another has).
    func updatePhoneNumber(_ number: IncomingPhoneNumber) throws(StoreError) -> IncomingPhoneNumber
    func deletePhoneNumber(sid: String) throws(StoreError) -> Bool
}

/// What a client sets on a number.
public struct PhoneNumberDraft: Sendable, Equatable {
    /// E.164: `+` and 2–15 digits.
    public var phoneNumber: String
    public var friendlyName: String
    public var voiceURL: String?
    public var voiceMethod: String
    public var statusCallback: String?
    public var statusCallbackMethod: String

    public init(phoneNumber: String, friendlyName: String = "", voiceURL: String? = nil, voiceMethod: String = "POST",
                statusCallback: String? = nil, statusCallbackMethod: String = "POST") {
        self.phoneNumber = phoneNumber
        self.friendlyName = friendlyName
        self.voiceURL = voiceURL
        self.voiceMethod = voiceMethod
        self.statusCallback = statusCallback
        self.statusCallbackMethod = statusCallbackMethod
    }
}

/// A stored number (`PN…`).
public struct IncomingPhoneNumber: Sendable, Equatable {
    public let sid: String
    public let accountSid: String
    public var draft: PhoneNumberDraft
    public let createdAt: Int64
    public var updatedAt: Int64

    public init(sid: String, accountSid: String, draft: PhoneNumberDraft, createdAt: Int64, updatedAt: Int64) {
        self.sid = sid
        self.accountSid = accountSid
        self.draft = draft
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
