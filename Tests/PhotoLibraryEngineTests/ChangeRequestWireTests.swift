import Foundation
import PhotoLibraryEngine
import Testing

/// A remote client's change requests read back as the intents it made, and what a server refuses to read.
@Suite("Change requests on the wire")
struct ChangeRequestWireTests {
    /// Through JSON text, as they travel.
    func roundTrip(_ intents: [ChangeIntent]) throws -> [ChangeIntent] {
        let data = try JSONSerialization.data(withJSONObject: try ChangeRequestWire.encode(intents))
        return try ChangeRequestWire.decode(try #require(JSONSerialization.jsonObject(with: data) as? [Any]))
    }

    @Test func propertiesAndMembershipEditsReadBackAsTheyWereMade() throws {
        var properties = AssetPropertyChanges()
        properties.creationDate = .some(Date(timeIntervalSince1970: 1_650_000_000.125))
        properties.location = .some(nil)
        properties.isFavorite = true
        properties.rating = 3
        properties.caption = .some("a \"quoted\" caption")
        properties.keywordEdits = [.add("north"), .remove("south")]
        properties.originalChoice = 1
        let read = try roundTrip([
            .updateAsset(localIdentifier: "A/L0/001", properties: properties),
            .updateCollection(
                localIdentifier: "B/L0/040", kind: .assetCollection, title: "Trip",
                edits: [.insert(["C/L0/001"], at: IndexSet(integer: 2)), .move(at: IndexSet([0, 3]), to: 1), .removeAt(IndexSet(integer: 4))],
                snapshot: ["D/L0/001"]),
        ])
        guard case .updateAsset(let identifier, let back) = read[0] else { Issue.record("not an update: \(read[0])"); return }
        #expect(identifier == "A/L0/001")
        #expect(back.creationDate == .some(Date(timeIntervalSince1970: 1_650_000_000.125)))
        #expect(back.location == .some(nil))
        #expect(back.isFavorite == true && back.isHidden == nil && back.rating == 3)
        #expect(back.caption == .some("a \"quoted\" caption"))
        #expect(back.keywordEdits == [.add("north"), .remove("south")])
        #expect(back.originalChoice == 1)
        guard case .updateCollection(let collection, let kind, let title, let edits, let snapshot) = read[1] else {
            Issue.record("not a collection update: \(read[1])")
            return
        }
        #expect(collection == "B/L0/040" && kind == .assetCollection && title == "Trip" && snapshot == ["D/L0/001"])
        #expect(edits.count == 3)
        if case .move(let indexes, let to) = edits[1] { #expect(Array(indexes) == [0, 3] && to == 1) } else { Issue.record("\(edits[1])") }
    }

    /// A server reads nothing it does not understand: each of these is `invalidResource`, saying where.
    @Test(arguments: [
        #"[{"request": "updateAsset", "asset": "A/L0/001", "isFavorite": true, "owner": "me"}]"#,
        #"[{"request": "updateAsset", "asset": "A/L0/001", "rating": 9}]"#,
        #"[{"request": "updateAsset", "asset": "../../etc/passwd"}]"#,
        #"[{"request": "createCollection", "collection": "my-album", "kind": 1, "title": "x"}]"#,
        #"[{"request": "createCollection", "collection": "6F1E4F1C-2B3A-4C5D-8E9F-0A1B2C3D4E5F/L0/020", "kind": 1, "title": "x"}]"#,
        #"[{"request": "createAsset", "asset": "6f1e4f1c-2b3a-4c5d-8e9f-0a1b2c3d4e5f/L0/001", "resources": [{"type": 1, "upload": "u"}]}]"#,
        #"[{"request": "updateAsset", "asset": "A/L0/001", "location": {"latitude": 91, "longitude": 0}}]"#,
        #"[{"request": "dropTable"}]"#,
        #"[{"request": "updateCollection", "collection": null, "kind": 2, "edits": [{"move": [1], "to": -1}]}]"#,
    ])
    func malformedRequestsAreRefused(_ json: String) throws {
        let requests = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any])
        do {
            _ = try ChangeRequestWire.decode(requests) { id throws(LibraryError) in URL(fileURLWithPath: "/nonexistent/\(id)") }
            Issue.record("read: \(json)")
        } catch {
            #expect(error.code == LibraryError.invalidResource("").code, "\(error.message)")
        }
    }

    @Test func aCreatedAssetNamesItsUploads() throws {
        let requests: [Any] = [
            [
                "request": "createAsset", "asset": "6F1E4F1C-2B3A-4C5D-8E9F-0A1B2C3D4E5F/L0/001", "isHidden": true,
                "resources": [["type": 1, "upload": "u1", "filename": "IMG_1.HEIC"], ["type": 9, "upload": "u2"]],
            ]
        ]
        var asked: [String] = []
        let intents = try ChangeRequestWire.decode(requests) { id throws(LibraryError) in
            asked.append(id)
            return URL(fileURLWithPath: "/uploads/\(id)")
        }
        #expect(asked == ["u1", "u2"])
        guard case .createAsset(_, let resources, let properties) = intents.first else { Issue.record("\(intents)"); return }
        #expect(resources.map(\.type) == [1, 9])
        #expect(resources.first?.originalFilename == "IMG_1.HEIC")
        #expect(properties.isHidden == true)
        guard case .file(let url, true) = resources[1].source else { Issue.record("\(resources[1].source)"); return }
        #expect(url.path == "/uploads/u2")
    }
}
