import CVips
import Foundation

enum GeometryFilters {
    static let all: [FilterDefinition] = []
}
