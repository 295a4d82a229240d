/* ink: fail when a page of the book has ink beside its text block.
 *
 *   ink MARGIN_MM TOLERANCE_MM page-1.pgm page-2.pgm ...
 *
 * Each file is one A4 page as `pdftoppm -gray` renders it (binary PGM). The text block is
 * the page less MARGIN_MM on every side (geometry's margin in book/style.tex); a dark pixel
 * in the rows of the text block that lies more than TOLERANCE_MM left or right of it is ink
 * in the margin. The running head and the page number are above and below those rows, so
 * they are not judged. Prints one line per offending page, then a total; exits 1 if any. */
#include <stdio.h>
#include <stdlib.h>

enum { DARK = 128 };

/* Read a binary PGM into *px (w x h bytes); 0, or -1 after a message. */
static int read_pgm(const char *path, int *w, int *h, unsigned char **px)
{
    FILE *f = fopen(path, "rb");
    int max;
    if (!f || fscanf(f, "P5 %d %d %d", w, h, &max) != 3 || max > 255 || fgetc(f) == EOF) {
        fprintf(stderr, "ink: %s: not a binary PGM of 8 bits\n", path);
        if (f)
            fclose(f);
        return -1;
    }
    *px = malloc((size_t)*w * (size_t)*h);
    size_t got = *px ? fread(*px, 1, (size_t)*w * (size_t)*h, f) : 0;
    fclose(f);
    if (got != (size_t)*w * (size_t)*h) {
        fprintf(stderr, "ink: %s: short file\n", path);
        free(*px);
        return -1;
    }
    return 0;
}

/* How far (mm) ink reaches beyond the text block's left and right edges, in its rows. */
static void overhang(const unsigned char *px, int w, int h, double margin, double *left,
                     double *right)
{
    double per_mm = w / 210.0;
    int x0 = (int)(margin * per_mm), x1 = w - (int)(margin * per_mm);
    int y0 = (int)(margin * per_mm), y1 = h - (int)(margin * per_mm);
    *left = *right = 0;
    for (int y = y0; y < y1; y++) {
        const unsigned char *row = px + (size_t)y * (size_t)w;
        for (int x = 0; x < x0; x++)
            if (row[x] < DARK) {
                *left = (x0 - x) / per_mm > *left ? (x0 - x) / per_mm : *left;
                break;
            }
        for (int x = w - 1; x >= x1; x--)
            if (row[x] < DARK) {
                *right = (x - x1 + 1) / per_mm > *right ? (x - x1 + 1) / per_mm : *right;
                break;
            }
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: ink MARGIN_MM TOLERANCE_MM page.pgm...\n");
        return 2;
    }
    double margin = atof(argv[1]), tolerance = atof(argv[2]);
    int bad = 0;
    for (int i = 3; i < argc; i++) {
        int w, h;
        unsigned char *px;
        double left, right;
        if (read_pgm(argv[i], &w, &h, &px))
            return 2;
        overhang(px, w, h, margin, &left, &right);
        free(px);
        if (left > tolerance || right > tolerance) {
            printf("ink: %s: ink %.1f mm left and %.1f mm right of the text block\n", argv[i],
                   left, right);
            bad++;
        }
    }
    printf("ink: %d of %d pages with ink more than %.1f mm beside the text block\n", bad,
           argc - 3, tolerance);
    return bad ? 1 : 0;
}
