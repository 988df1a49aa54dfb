import JSONWire
import ParleyCore
import ParleyStore
import Testing
import VideoREST

@Suite("VideoRESTRouter")
struct VideoRESTRouterTests {
    @Test func createsFetchesListsAndCompletesARoom() async throws {
        let f = try VideoFixture()
        let (status, room) = await f.request("POST", "/v1/Rooms", form: [("UniqueName", "daily"), ("Type", "group"),
                                                                         ("MaxParticipants", "10"), ("VideoCodecs", "VP8")])
        #expect(status == 201)
        let sid = try #require(room["sid"]?.string)
        #expect(sid.hasPrefix("RM"))
        #expect(room["unique_name"]?.string == "daily")
        #expect(room["status"]?.string == "in-progress")
        #expect(room["max_participants"]?.int == 10)
        #expect(room["date_created"]?.string == "2023-11-14T22:13:20Z")
        #expect(room["url"]?.string == "https://video.example/v1/Rooms/\(sid)")
        #expect(room["links"]?["participants"]?.string == "https://video.example/v1/Rooms/\(sid)/Participants")

        #expect(await f.request("GET", "/v1/Rooms/daily").1["sid"]?.string == sid)
        #expect(await f.request("GET", "/v1/Rooms/\(sid)").0 == 200)
        #expect(await f.request("POST", "/v1/Rooms", form: [("UniqueName", "daily")]).1["code"]?.int == 53113)

        let (listStatus, list) = await f.request("GET", "/v1/Rooms?Status=in-progress")
        #expect(listStatus == 200)
        #expect(list["rooms"]?.array.count == 1)
        #expect(list["meta"]?["key"]?.string == "rooms")

        #expect(await f.request("POST", "/v1/Rooms/\(sid)", form: [("Status", "failed")]).1["code"]?.int == 53112)
        let (_, done) = await f.request("POST", "/v1/Rooms/\(sid)", form: [("Status", "completed")])
        #expect(done["status"]?.string == "completed")
        #expect(await f.request("GET", "/v1/Rooms/daily").0 == 404)
    }

    @Test(arguments: [
        ([("MaxParticipants", "51")], 53107), ([("Type", "go"), ("MaxParticipants", "3")], 53107),
        ([("Type", "peer-to-peer"), ("MaxParticipants", "11")], 53107), ([("Type", "huge")], 53108),
        ([("Type", "group-small"), ("MaxParticipants", "5")], 53107),
        ([("MaxParticipantDuration", "599")], 53109), ([("MaxParticipantDuration", "86401")], 53109),
        ([("EmptyRoomTimeout", "x")], 53109), ([("StatusCallbackMethod", "PUT")], 53110),
        ([("StatusCallback", "ftp://x")], 53111), ([("UniqueName", "RMabc")], 53100),
        ([("UniqueName", String(repeating: "a", count: 129))], 53101),
    ])
    func refusesBadCreateParameters(form: [(String, String)], code: Int) async throws {
        let f = try VideoFixture()
        let (status, body) = await f.request("POST", "/v1/Rooms", form: form)
        #expect(status == 400)
        #expect(body["code"]?.int == Int64(code))
    }

    @Test func aGroupSmallRoomHoldsFourByDefault() async throws {
        let f = try VideoFixture()
        let (status, room) = await f.request("POST", "/v1/Rooms", form: [("UniqueName", "huddle"), ("Type", "group-small")])
        #expect(status == 201 && room["type"]?.string == "group-small" && room["max_participants"]?.int == 4)
    }

    @Test func authAndUnknownPaths() async throws {
        let f = try VideoFixture()
        let (status, body) = await f.request("GET", "/v1/Rooms", auth: "\(f.account.sid):wrong")
        #expect(status == 401)
        #expect(body["code"]?.int == 20003)
        let key = try f.store.createAPIKey(accountSid: f.account.sid, friendlyName: "k")
        #expect(await f.request("GET", "/v1/Rooms", auth: "\(key.sid):\(key.secret)").0 == 200)
        let (missing, notFound) = await f.request("GET", "/v1/Rooms/RM0/Nope")
        #expect(missing == 404)
        #expect(notFound["code"]?.int == 20404)
    }

    @Test func pagesRooms() async throws {
        let f = try VideoFixture()
        for i in 0..<5 { _ = await f.request("POST", "/v1/Rooms", form: [("UniqueName", "r\(i)")]) }
        let (_, first) = await f.request("GET", "/v1/Rooms?PageSize=2")
        #expect(first["rooms"]?.array.count == 2)
        #expect(first["meta"]?["page_size"]?.int == 2)
        #expect(first["meta"]?["previous_page_url"] == .null)
        let next = try #require(first["meta"]?["next_page_url"]?.string)
        let (_, second) = await f.request("GET", String(next.dropFirst("https://video.example".count)))
        #expect(second["meta"]?["page"]?.int == 1)
        #expect(second["rooms"]?.array.count == 2)
        let (_, third) = await f.request("GET", "/v1/Rooms?PageSize=2&Page=2")
        #expect(third["rooms"]?.array.count == 1)
        #expect(third["meta"]?["next_page_url"] == .null)
    }

    @Test func participantsTracksAndRules() async throws {
        let f = try VideoFixture()
        let room = try #require(await f.request("POST", "/v1/Rooms", form: [("UniqueName", "r")]).1["sid"]?.string)
        let alice = try f.join(room, "alice")
        let bob = try f.join(room, "bob")
        let base = "/v1/Rooms/\(room)/Participants"

        let (_, list) = await f.request("GET", base + "?Identity=alice")
        #expect(list["participants"]?.array.count == 1)
        #expect(list["meta"]?["key"]?.string == "participants")
        #expect(await f.request("GET", base + "/alice").1["sid"]?.string == alice.sid)

        let (_, published) = await f.request("GET", base + "/\(alice.sid)/PublishedTracks")
        let track = try #require(published["published_tracks"]?.array.first?["sid"]?.string)
        #expect(await f.request("GET", base + "/\(alice.sid)/PublishedTracks/\(track)").1["kind"]?.string == "audio")

        let (_, subscribed) = await f.request("GET", base + "/\(bob.sid)/SubscribedTracks")
        #expect(subscribed["subscribed_tracks"]?.array.first?["publisher_sid"]?.string == alice.sid)
        #expect(await f.request("GET", base + "/\(bob.sid)/SubscribedTracks/\(track)").0 == 200)

        let (_, rules) = await f.request("GET", base + "/\(bob.sid)/SubscribeRules")
        #expect(rules["rules"]?.array.first?["all"] == .bool(true))
        let newRules = #"[{"type":"include","kind":"audio"},{"type":"exclude","publisher":"alice"}]"#
        let (_, updated) = await f.request("POST", base + "/\(bob.sid)/SubscribeRules", form: [("Rules", newRules)])
        #expect(updated["rules"]?.array.count == 2)
        #expect(updated["rules"]?.array.last?["publisher"]?.string == "alice")
        for bad in ["[{\"type\":\"maybe\"}]", "{}", "[{\"type\":\"include\"}]", "[{\"type\":\"include\",\"kind\":\"smell\"}]"] {
            #expect(await f.request("POST", base + "/\(bob.sid)/SubscribeRules", form: [("Rules", bad)]).1["code"]?.int == 53215)
        }

        let (_, gone) = await f.request("POST", base + "/\(alice.sid)", form: [("Status", "disconnected")])
        #expect(gone["status"]?.string == "disconnected")
        #expect(await f.request("GET", base + "?Status=connected").1["participants"]?.array.count == 1)
    }
}
