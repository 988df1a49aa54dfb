import Synchronization

/// `IncomingPhoneNumbers` in memory: the twin of `SQLiteAccountStore+PhoneNumbers`.
extension InMemoryAccountStore: PhoneNumberStore {
    public func createPhoneNumber(_ draft: PhoneNumberDraft, accountSid: String) throws(StoreError) -> IncomingPhoneNumber {
        let time = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> IncomingPhoneNumber in
            guard s.accounts.contains(where: { $0.sid == accountSid }) else { throw .notFound("account \(accountSid)") }
            guard !s.phoneNumbers.contains(where: { $0.draft.phoneNumber == draft.phoneNumber }) else {
                throw .conflict("phone number \(draft.phoneNumber)")
            }
            let number = IncomingPhoneNumber(sid: SID.make("PN"), accountSid: accountSid, draft: draft, createdAt: time, updatedAt: time)
            s.phoneNumbers.append(number)
            return number
        }
    }

    public func phoneNumber(sid: String) throws(StoreError) -> IncomingPhoneNumber? {
        state.withLock { s in s.phoneNumbers.first { $0.sid == sid } }
    }

    public func phoneNumber(number: String) throws(StoreError) -> IncomingPhoneNumber? {
        state.withLock { s in s.phoneNumbers.first { $0.draft.phoneNumber == number } }
    }

    public func phoneNumbers(accountSid: String, phoneNumber: String?) throws(StoreError) -> [IncomingPhoneNumber] {
        state.withLock { s in
            s.phoneNumbers.filter { $0.accountSid == accountSid && (phoneNumber == nil || $0.draft.phoneNumber == phoneNumber) }
        }
    }

    public func updatePhoneNumber(_ number: IncomingPhoneNumber) throws(StoreError) -> IncomingPhoneNumber {
        let time = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> IncomingPhoneNumber in
            guard let index = s.phoneNumbers.firstIndex(where: { $0.sid == number.sid }) else { throw .notFound("phone number \(number.sid)") }
            guard !s.phoneNumbers.contains(where: { $0.sid != number.sid && $0.draft.phoneNumber == number.draft.phoneNumber }) else {
                throw .conflict("phone number \(number.draft.phoneNumber)")
            }
            s.phoneNumbers[index].draft = number.draft
            s.phoneNumbers[index].updatedAt = time
            return s.phoneNumbers[index]
        }
    }

    public func deletePhoneNumber(sid: String) throws(StoreError) -> Bool {
        state.withLock { s in
            guard let index = s.phoneNumbers.firstIndex(where: { $0.sid == sid }) else { return false }
            s.phoneNumbers.remove(at: index)
            return true
        }
    }
}
