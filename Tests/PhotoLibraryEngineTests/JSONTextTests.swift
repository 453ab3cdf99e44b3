import Foundation
import JSONWriting
import PhotoLibraryEngine
import Testing

/// The JSON a served library's client and server write without `JSONSerialization`: the same values read back.
@Suite("JSON text")
struct JSONTextTests {
    /// Both texts parsed, as a reader of either would see them.
    func parsed(_ data: Data) throws -> NSObject { try #require(JSONSerialization.jsonObject(with: data) as? NSObject) }

    @Test func writesExactlyWhatItIsGiven() throws {
        let object: [String: Any] = [
            "b": "quote \" backslash \\ newline \n tab \t return \r bell \u{7} é ✓ 📷 / done", "a": [1, true, NSNull(), -2.5, 120.0] as [Any],
            "c": [["Authorization", "Bearer x"], ["Photos-Asset-Identifier", "A/L0/001"]], "d": [String](), "e": [String: Any](),
            "f": Int64.max, "g": 1e20, "h": false,
        ]
        let text = String(decoding: try JSONText.data(object, sortedKeys: true), as: UTF8.self)
        #expect(
            text
                == #"{"a":[1,true,null,-2.5,120],"b":"quote \" backslash \\ newline \n tab \t return \r bell \u0007 é ✓ 📷 / done","c":[["Authorization","Bearer x"],["Photos-Asset-Identifier","A/L0/001"]],"d":[],"e":{},"f":9223372036854775807,"g":1e+20,"h":false}"#
        )
        #expect(try parsed(Data(text.utf8)) == parsed(try JSONSerialization.data(withJSONObject: object)))
        // Unsorted: the same object.
        #expect(try parsed(try JSONText.data(object)) == parsed(Data(text.utf8)))
    }

    @Test func numbersReadFromJSONAreNotTakenForBooleans() throws {
        // An NSNumber 1 casts to `true` (and `true` to 1): such a value is left to JSONSerialization, which tells them apart.
        let read = try #require(JSONSerialization.jsonObject(with: Data(#"{"n":[1,0,true,2.5]}"#.utf8)) as? [String: Any])
        #expect(String(decoding: try JSONText.data(read, sortedKeys: true), as: UTF8.self) == #"{"n":[1,0,true,2.5]}"#)
    }

    /// Two jobs as `GET /v1/upload-jobs` answers them: every field, and none of the optional ones.
    static let jobs = #"""
        {"jobs":[{"localIdentifier":"J/L0/001","client":"org.example.app","jobType":0,"assetLocalIdentifier":"A/L0/001",
        "resourceType":1,"resourceSHA256":"ab12","destination":{"url":"https://photos.example.com/v1/backup","method":"POST",
        "headers":[["Authorization","Bearer t\"o\\k"],["Photos-Resource-Filename","IMG%201.JPG"]],"timeout":120},"state":4,
        "acknowledged":false,"retried":true,"attempts":2,"error":"the destination answered 503:\n\"busy\"","responseStatus":201,
        "responseHeaders":{"photos-library-asset":"B/L0/001","content-type":"application/json"},"createdDate":1764450000.123456,
        "resource":{"id":7,"assetID":3,"assetLocalIdentifier":"A/L0/001","type":1,"originalFilename":"IMG \"1\".JPG",
        "uniformTypeIdentifier":"public.jpeg","fileSize":571819,"sha256":"ab12","pixelWidth":4000,"pixelHeight":3000}},
        {"localIdentifier":"J/L0/002","jobType":1,"assetLocalIdentifier":"A/L0/002","resourceType":9,"resourceSHA256":"cd34",
        "destination":{"url":"http://127.0.0.1:8080/v1/backup","method":"PUT","headers":[],"timeout":0.5},"state":1,
        "acknowledged":true,"retried":false,"attempts":0,"createdDate":1764450001}]}
        """#

    @Test func uploadJobsAreWrittenAsJSONEncoderWritesThem() throws {
        let records = try #require(try JSONDecoder().decode([String: [UploadJobWireRecord]].self, from: Data(Self.jobs.utf8))["jobs"])
        #expect(records.count == 2)
        let written = try UploadJobWireRecord.encode(records)
        #expect(try parsed(written) == parsed(try JSONEncoder().encode(["jobs": records])))
        #expect(try parsed(written) == parsed(Data(Self.jobs.utf8)))
    }

    @Test func resourcesAreWrittenAsJSONEncoderWritesThem() throws {
        let text = #"""
            {"resources":[{"id":7,"assetID":3,"assetLocalIdentifier":"A/L0/001","type":1,"originalFilename":"IMG \"1\"\\2.JPG",
            "uniformTypeIdentifier":"public.jpeg","fileSize":571819,"sha256":"ab12","pixelWidth":4000,"pixelHeight":3000},
            {"id":-1,"assetID":0,"assetLocalIdentifier":"","type":-40,"originalFilename":"","uniformTypeIdentifier":"","fileSize":0,
            "sha256":"","pixelWidth":0,"pixelHeight":0}]}
            """#
        let records = try ResourceWireRecord.decode(Data(text.utf8))
        #expect(records.count == 2)
        let written = try ResourceWireRecord.encode(records)
        #expect(try parsed(written) == parsed(try JSONEncoder().encode(["resources": records])))
        #expect(try parsed(written) == parsed(Data(text.utf8)))
    }
}
