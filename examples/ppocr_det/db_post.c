/* SPDX-License-Identifier: MIT */
/* DB text-detection post-process (db_post.h): components, rectangles, scores. */
#include "db_post.h"

#include <stdbool.h>
#define DB_EDGE 0.01f




/* Pixel centres of one component's convex hull, in integers (exact). */
struct pt {
	int32_t x, y;
};

/* A rectangle: centre, unit axes u (along w) and v (along h), side lengths. */
struct rect {
	float cx, cy, ux, uy, vx, vy, w, h;
};

/* Scratch: visited flags and the flood-fill queue (h*w words each), the
 * leftmost and rightmost pixel per row (h each), the hull's candidate
 * points (two per row) and the monotone chain's stack (twice as many plus
 * one: both passes stack points before popping them). */
#define DB_PTS(h)	(2u * (size_t)(h))
#define DB_HULL(h)	(2u * DB_PTS(h) + 1u)

size_t db_scratch_words(uint32_t h, uint32_t w)
{
	return 2u * (size_t)h * w + 2u * (size_t)h + 2u * (DB_PTS(h) + DB_HULL(h));
}

static int64_t cross(struct pt o, struct pt a, struct pt b)
{
	return (int64_t)(a.x - o.x) * (b.y - o.y) - (int64_t)(a.y - o.y) * (b.x - o.x);
}

/* Andrew's monotone chain over points sorted by (y, x); returns the hull's
 * size, its points counter-clockwise in hull (room for 2n + 1). */
static unsigned int convex_hull(const struct pt *p, unsigned int n, struct pt *hull)
{
	unsigned int k = 0;

	if (n < 3) {
		for (unsigned int i = 0; i < n; i++)
			hull[i] = p[i];
		return n;
	}
	for (unsigned int i = 0; i < n; i++) {
		while (k >= 2 && cross(hull[k - 2], hull[k - 1], p[i]) <= 0)
			k--;
		hull[k++] = p[i];
	}
	for (unsigned int i = n - 1, t = k + 1; i-- > 0;) {
		while (k >= t && cross(hull[k - 2], hull[k - 1], p[i]) <= 0)
			k--;
		hull[k++] = p[i];
	}
	return k - 1;	/* the last point is the first again */
}

/* The minimum-area rectangle around the hull: one side lies on a hull edge
 * (rotating calipers), so every edge's direction is tried. */
static struct rect min_area_rect(const struct pt *hull, unsigned int n)
{
	struct rect best = { .cx = (float)hull[0].x, .cy = (float)hull[0].y, .ux = 1.0f,
			     .vy = 1.0f };
	float best_area = -1.0f;

	for (unsigned int i = 0; n >= 2 && i < n; i++) {
		struct pt a = hull[i], b = hull[(i + 1) % n];
		float dx = (float)(b.x - a.x), dy = (float)(b.y - a.y);
		float len = __builtin_sqrtf(dx * dx + dy * dy);
		float ux, uy, amin = 0, amax = 0, bmin = 0, bmax = 0, area;

		if (len == 0.0f)
			continue;
		ux = dx / len;
		uy = dy / len;
		for (unsigned int j = 0; j < n; j++) {
			float px = (float)(hull[j].x - a.x), py = (float)(hull[j].y - a.y);
			float pa = px * ux + py * uy, pb = -px * uy + py * ux;

			amin = pa < amin ? pa : amin;
			amax = pa > amax ? pa : amax;
			bmin = pb < bmin ? pb : bmin;
			bmax = pb > bmax ? pb : bmax;
		}
		area = (amax - amin) * (bmax - bmin);
		if (best_area < 0.0f || area < best_area) {
			float ma = (amin + amax) / 2, mb = (bmin + bmax) / 2;

			best_area = area;
			best.ux = ux;
			best.uy = uy;
			best.vx = -uy;
			best.vy = ux;
			best.cx = (float)a.x + ux * ma - uy * mb;
			best.cy = (float)a.y + uy * ma + ux * mb;
			best.w = amax - amin;
			best.h = bmax - bmin;
		}
	}
	return best;
}

/* Mean of the map over the pixels whose centres lie within half a pixel
 * of rectangle r (a filled polygon covers its edge pixels). */
static float rect_score(const float *map, uint32_t h, uint32_t w, const struct rect *r)
{
	float ex = (r->w * (r->ux < 0 ? -r->ux : r->ux) + r->h * (r->vx < 0 ? -r->vx : r->vx)) / 2;
	float ey = (r->w * (r->uy < 0 ? -r->uy : r->uy) + r->h * (r->vy < 0 ? -r->vy : r->vy)) / 2;
	float x0 = r->cx - ex - 1, x1 = r->cx + ex + 1, y0 = r->cy - ey - 1, y1 = r->cy + ey + 1;
	uint32_t xa = x0 < 0 ? 0 : (uint32_t)x0, ya = y0 < 0 ? 0 : (uint32_t)y0;
	uint32_t xb = x1 >= (float)w ? w - 1 : (uint32_t)x1;
	uint32_t yb = y1 >= (float)h ? h - 1 : (uint32_t)y1;
	double sum = 0;
	uint32_t count = 0;

	for (uint32_t y = ya; y <= yb; y++)
		for (uint32_t x = xa; x <= xb; x++) {
			float px = (float)x - r->cx, py = (float)y - r->cy;
			float a = px * r->ux + py * r->uy, b = px * r->vx + py * r->vy;

			if ((a < 0 ? -a : a) <= r->w / 2 + DB_EDGE &&
			    (b < 0 ? -b : b) <= r->h / 2 + DB_EDGE) {
				sum += map[(size_t)y * w + x];
				count++;
			}
		}
	return count ? (float)(sum / count) : 0.0f;
}

/* A coordinate of the map scaled to the image, clamped, rounded. */
static int32_t scale(float v, uint32_t from, uint32_t to)
{
	float s = v / (float)from * (float)to;

	s = s < 0 ? 0 : s > (float)to ? (float)to : s;
	return (int32_t)(s + 0.5f);
}

/* The rectangle's corners in the image, ordered as PaddleOCR's
 * get_mini_boxes: of the two leftmost the upper is first and the lower
 * last, of the two rightmost the upper second and the lower third. */
static void corners(const struct rect *r, uint32_t h, uint32_t w, const struct db_params *p,
		    struct db_box *box)
{
	static const float SIGN[4][2] = { { -1, -1 }, { 1, -1 }, { 1, 1 }, { -1, 1 } };
	uint32_t iw = p->image_w ? p->image_w : w, ih = p->image_h ? p->image_h : h;
	float x[4], y[4];
	unsigned int order[4] = { 0, 1, 2, 3 };

	for (unsigned int i = 0; i < 4; i++) {
		x[i] = r->cx + SIGN[i][0] * r->ux * r->w / 2 + SIGN[i][1] * r->vx * r->h / 2;
		y[i] = r->cy + SIGN[i][0] * r->uy * r->w / 2 + SIGN[i][1] * r->vy * r->h / 2;
	}
	for (unsigned int i = 1; i < 4; i++)	/* insertion sort by x */
		for (unsigned int j = i; j > 0 && x[order[j]] < x[order[j - 1]]; j--) {
			unsigned int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	{
		bool l = y[order[1]] < y[order[0]], rr = y[order[3]] < y[order[2]];
		unsigned int seq[4] = { order[l ? 1 : 0], order[rr ? 3 : 2], order[rr ? 2 : 3],
					order[l ? 0 : 1] };

		for (unsigned int i = 0; i < 4; i++) {
			box->x[i] = scale(x[seq[i]], w, iw);
			box->y[i] = scale(y[seq[i]], h, ih);
		}
	}
}

int db_boxes(const float *map, uint32_t h, uint32_t w, const struct db_params *p,
	     uint32_t *scratch, struct db_box *boxes, unsigned int max_boxes)
{
	size_t n = (size_t)h * w;
	uint32_t *seen = scratch, *queue = scratch + n, *rmin = queue + n, *rmax = rmin + h;
	struct pt *pts = (struct pt *)(rmax + h), *hull = pts + DB_PTS(h);
	int found = 0;

	if (!h || !w)
		return -1;
	for (size_t i = 0; i < n; i++)
		seen[i] = 0;
	for (size_t start = 0; start < n; start++) {
		size_t head = 0, tail = 0;
		uint32_t ymin = (uint32_t)(start / w), ymax = ymin;
		unsigned int np = 0, nh;
		struct rect r;
		float score, d;

		if (seen[start] || !(map[start] > p->thresh))
			continue;
		seen[start] = 1;
		queue[tail++] = (uint32_t)start;
		rmin[ymin] = rmax[ymin] = (uint32_t)(start % w);
		while (head < tail) {	/* breadth-first, 8 neighbours */
			uint32_t y = queue[head] / w, x = queue[head] % w;

			head++;
			for (int dy = -1; dy <= 1; dy++)
				for (int dx = -1; dx <= 1; dx++) {
					int64_t yy = (int64_t)y + dy, xx = (int64_t)x + dx;
					size_t q;

					if (yy < 0 || xx < 0 || yy >= h || xx >= w)
						continue;
					q = (size_t)yy * w + (size_t)xx;
					if (seen[q] || !(map[q] > p->thresh))
						continue;
					seen[q] = 1;
					queue[tail++] = (uint32_t)q;
					/* rows are reached top to bottom from the first */
					if ((uint32_t)yy > ymax) {
						ymax = (uint32_t)yy;
						rmin[ymax] = rmax[ymax] = (uint32_t)xx;
					} else {
						rmin[yy] = (uint32_t)xx < rmin[yy] ? (uint32_t)xx :
							   rmin[yy];
						rmax[yy] = (uint32_t)xx > rmax[yy] ? (uint32_t)xx :
							   rmax[yy];
					}
				}
		}
		/* Only a row's two extreme pixels can be hull vertices. */
		for (uint32_t y = ymin; y <= ymax; y++) {
			pts[np++] = (struct pt){ (int32_t)rmin[y], (int32_t)y };
			if (rmax[y] != rmin[y])
				pts[np++] = (struct pt){ (int32_t)rmax[y], (int32_t)y };
		}
		nh = convex_hull(pts, np, hull);
		r = min_area_rect(hull, nh);
		if ((r.w < r.h ? r.w : r.h) < p->min_size)
			continue;
		score = rect_score(map, h, w, &r);
		if (score < p->box_thresh)
			continue;
		d = r.w * r.h * p->unclip_ratio / (2 * (r.w + r.h));
		r.w += 2 * d;
		r.h += 2 * d;
		if ((r.w < r.h ? r.w : r.h) < p->min_size + 2)
			continue;
		if ((unsigned int)found < max_boxes) {
			corners(&r, h, w, p, &boxes[found]);
			boxes[found].score = score;
		}
		found++;
	}
	return found;
}
