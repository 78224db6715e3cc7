// Package colmap reads and writes COLMAP's files behind plain Go types:
//
//   - Database.Write creates database.db in COLMAP 3.8's schema (cameras,
//     images, keypoints, descriptors, matches, two_view_geometries), the
//     input of `colmap mapper`; ReadMatches reads any such database's
//     keypoints and verified matches back (read-only);
//   - ReadModel reads a sparse model (cameras, images, points3D), text or
//     binary, as `colmap mapper` writes it: each image's pose and
//     intrinsics, and the points' counts and errors.
//
// Everything is in COLMAP's conventions (first pixel's centre at (0.5,
// 0.5), camera parameters in each model's order) except where a doc says
// otherwise; package export converts from clearmatch's. Readers check
// what they read: a damaged file is an error naming the file (and, for
// text, the line), never a panic or a huge allocation. Pure Go (the
// SQLite is modernc's), so it builds with CGO_ENABLED=0.
package colmap
