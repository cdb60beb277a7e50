/* The perceptron's epoch loop in C: an optional speed-up of perceptron_lib._engine.
 *
 * scan() visits the examples from `start` on, in order, with the weights
 * v = (w, b) and, on each mistake, makes the update w += s x, b += s of the
 * plain loop.  Python's numpy path spends a few microseconds per mistake;
 * here a mistake costs one pass over d numbers.  scan_multiclass(), further
 * down, does the same for the multiclass perceptron.
 *
 * Exactness.  The plain loop decides a mistake by the sign of numpy's
 * y * (x @ w + b); numpy's dot product (BLAS) adds its terms in an order this
 * file cannot reproduce, so the two computed scores may differ in the last
 * bits.  The kernel therefore decides only where its own score provably has
 * the sign numpy's has, and hands every other example back to Python, which
 * decides it with numpy's own expression.
 *
 * The bound.  Write z = y (x, 1) and v = (w, b) (z = y x and v = w without an
 * offset), m their length, A = z . v the exact agreement, u = 2^-53 the unit
 * roundoff and eta = 2^-1074 the smallest subnormal.  Any evaluation that
 * forms the m products and adds them up in any order, with or without fused
 * multiply-adds, returns a value within
 *     gamma_m sum_j |z_j v_j| + m eta,     gamma_m = m u / (1 - m u),
 * of A (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
 * section 3.1; a product that underflows errs by at most eta / 2 more, and a
 * sum that lands among the subnormals is exact).  numpy's value is such an
 * evaluation: x @ w adds d products, "+ b" adds the m-th (b * 1 is exact),
 * and multiplying by y = -1 or +1 is exact, so its sign is the sign of its
 * value.  Ours, y * (dot(x, w) + b), is another.  By Cauchy-Schwarz,
 * sum_j |z_j v_j| <= ||z|| ||v||, so the two values differ by at most
 *     E = 2 (gamma_m ||z|| ||v|| + m eta).
 * The slack used is
 *     slack = 2 (m + 3) u Z V + 8 m eta,
 * with Z a bound on the largest ||z|| over the examples, computed by the
 * caller, and V one on ||v||, computed here.  Each is the square root of a
 * computed sum of m squares.  That sum errs by a relative gamma_m (its terms
 * are positive) plus at most m eta / 2 from squares that underflow; when it
 * is at least 2^-960 the latter is below a relative 2^-90 for m < 10^7, so
 * the root is at least the true norm times 1 - (m / 2 + 2) u.  A sum below
 * 2^-960 may have lost its accuracy to underflow, and its root is replaced
 * by 2^-470, which exceeds any norm whose computed sum of squares is that
 * small.  Forming the slack rounds four more times, so
 *     (m + 3) u Z V >= (m + 3)(1 - (m + 8) u) u ||z|| ||v||,
 * which is at least gamma_m ||z|| ||v|| whenever 2 m^2 u < 3, in particular
 * for every m < 10^7 (larger m is refused).  Where those four products
 * underflow, each errs by at most eta, which the 6 m eta beyond E's 2 m eta
 * absorbs.
 * So slack >= E, and
 *     our agreement > slack   =>  numpy's > 0: no mistake;
 *     our agreement < -slack  =>  numpy's < 0: a mistake;
 * and an agreement within [-slack, slack] is returned undecided.  With v = 0
 * every product is a signed zero in both evaluations, the agreement is
 * exactly 0 in both, and the example is a mistake.  When Z V exceeds 1e300
 * (where a sum could overflow) or is not a number, nothing is decided here.
 *
 * The update must equal numpy's `w += s * x; b += s` bit for bit: one
 * rounded product, then one rounded sum, per entry.  The build turns off
 * floating-point contraction (-ffp-contract=off) so that no compiler fuses
 * them into one multiply-add.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

#define UNIT 0x1p-53
#define TINY 0x1p-1074
#define MAX_TERMS 10000000

enum { SCAN_DONE = 0, SCAN_MISTAKE = 1, SCAN_UNDECIDED = 2 };

/* Eight running sums, which the compiler can pack into vector registers: any
 * order of summation is covered by the bound above. */
static double dot(const double *a, const double *b, Py_ssize_t n)
{
    double s[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    Py_ssize_t j = 0;
    for (; j + 8 <= n; j += 8)
        for (int k = 0; k < 8; k++)
            s[k] += a[j + k] * b[j + k];
    double tail = 0.0;
    for (; j < n; j++)
        tail += a[j] * b[j];
    return (((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]))) + tail;
}

/* The slack for weights v of length m (see the bound above): 0 when v is zero (decided
 * exactly), inf when nothing may be decided. */
/* The slack of the bound above for m terms and the product zv = Z V of the two norms' bounds:
 * inf when zv exceeds 1e300 or is not a number. */
static double slack_of(double zv, Py_ssize_t m)
{
    if (!(zv <= 1e300))
        return INFINITY;
    return 2.0 * (double)(m + 3) * UNIT * zv + 8.0 * (double)m * TINY;
}

static double slack_for(const double *v, Py_ssize_t m, double max_z_norm)
{
    double squares = dot(v, v, m);
    if (squares < 0x1p-960) {
        for (Py_ssize_t j = 0; j < m; j++)
            if (v[j] != 0.0)
                return slack_of(max_z_norm * 0x1p-470, m);
        return 0.0;
    }
    return slack_of(max_z_norm * sqrt(squares), m);
}

static int need(const Py_buffer *buf, Py_ssize_t count, const char *name)
{
    if (buf->len != count * (Py_ssize_t)sizeof(double)) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd float64 values, got %zd bytes", name, count, buf->len);
        return 0;
    }
    return 1;
}

static PyObject *scan(PyObject *self, PyObject *args)
{
    Py_buffer X = {0}, y = {0}, step = {0}, v = {0};
    Py_ssize_t n, d, start;
    int fit_intercept, update;
    double max_z_norm;
    PyObject *result = NULL;

    if (!PyArg_ParseTuple(args, "y*y*y*w*nnpndp", &X, &y, &step, &v, &n, &d, &fit_intercept, &start,
                          &max_z_norm, &update))
        return NULL;
    Py_ssize_t m = d + (fit_intercept ? 1 : 0);
    if (!need(&X, n * d, "X") || !need(&y, n, "y") || !need(&step, n, "step") || !need(&v, m, "v"))
        goto done;
    if (m >= MAX_TERMS) {
        PyErr_Format(PyExc_ValueError, "the bound needs fewer than %d weights, got %zd", MAX_TERMS, m);
        goto done;
    }
    if (start < 0 || start > n) {
        PyErr_Format(PyExc_ValueError, "start must be in [0, %zd], got %zd", n, start);
        goto done;
    }

    const double *xs = X.buf, *ys = y.buf, *steps = step.buf;
    double *w = v.buf;
    Py_ssize_t i = start, made = 0;
    int status = SCAN_DONE;

    Py_BEGIN_ALLOW_THREADS
    double b = fit_intercept ? w[d] : 0.0;
    double slack = slack_for(w, m, max_z_norm);
    for (; i < n; i++) {
        const double *x = xs + i * d;
        double agreement = ys[i] * (dot(x, w, d) + b);
        if (agreement > slack)
            continue;
        if (!(slack == 0.0 || agreement < -slack)) {
            status = SCAN_UNDECIDED;
            break;
        }
        if (!update) {
            status = SCAN_MISTAKE;
            break;
        }
        double s = steps[i];
        for (Py_ssize_t j = 0; j < d; j++)
            w[j] = w[j] + s * x[j];
        if (fit_intercept) {
            w[d] = w[d] + s;
            b = w[d];
        }
        made++;
        slack = slack_for(w, m, max_z_norm);
    }
    Py_END_ALLOW_THREADS

    result = Py_BuildValue("nin", i, status, made);
done:
    PyBuffer_Release(&X);
    PyBuffer_Release(&y);
    PyBuffer_Release(&step);
    PyBuffer_Release(&v);
    return result;
}

/* The multiclass perceptron's epoch loop (perceptron_lib.multiclass).
 *
 * On example i of class c the plain loop computes numpy's scores t = W @ x + b,
 * takes r, the first index of the largest t_k over k != c, and counts a mistake
 * when t_r >= t_c; the update is w_c += s x, w_r -= s x (and b_c += s, b_r -= s).
 *
 * Exactness.  Our score s_k = dot(x, w_k) + b_k and numpy's t_k are two
 * evaluations of the same exact score, with m = d + 1 terms, vectors
 * (x, 1) and (w_k, b_k) of norms at most Z and V (V the largest over the
 * classes); by the bound proved above for scan(), |s_k - t_k| <= S where
 * S = 2 (m + 3) u Z V + 8 m eta is scan()'s slack.  So for two classes a and b,
 *     (s_a - s_b) - (t_a - t_b)  is at most 2 S in size,
 * and 2 S is the slack here.  The difference s_a - s_b is itself rounded, but
 * rounding is monotone and the slack is a double, so a computed difference
 * above the slack means an exact one above it, and then t_a > t_b.  With r
 * our first best class other than c:
 *     s_c - s_r > slack  =>  t_c > t_k for every k != c: no mistake;
 *     s_c - s_r < -slack =>  t_r > t_c: a mistake, and numpy's rival is r when
 *                            also s_r - s_k > slack for every other k != c;
 * every other example is returned undecided, for numpy's own expression.
 * With all weights zero every score is a signed zero in both evaluations, so
 * the comparisons are exact: a mistake, with the first class other than c as
 * the rival.  When Z V exceeds 1e300 or is not a number nothing is decided.
 *
 * The update is numpy's `W[c] += s * x; W[r] -= s * x`: one rounded product,
 * then one rounded sum or difference, per entry.
 */
static double multiclass_slack(const double *W, const double *b, Py_ssize_t n_classes, Py_ssize_t d,
                               double max_z_norm)
{
    double squares = 0.0;
    int nonzero = 0;
    for (Py_ssize_t k = 0; k < n_classes; k++) {
        const double *w = W + k * d;
        double row = dot(w, w, d) + b[k] * b[k];
        if (isnan(row))
            return INFINITY;
        if (row > squares)
            squares = row;
        if (!nonzero) {
            nonzero = b[k] != 0.0;
            for (Py_ssize_t j = 0; j < d && !nonzero; j++)
                nonzero = w[j] != 0.0;
        }
    }
    if (!nonzero)
        return 0.0;
    /* A row whose computed sum of squares is below 2^-960 has a norm below 2^-470 (see
     * slack_for), which may exceed the root of the largest sum; no norm exceeds both. */
    return 2.0 * slack_of(max_z_norm * fmax(sqrt(squares), 0x1p-470), d + 1);
}

/* Row c of `rows` moves by t x and row r by -t x (offsets c and r by t and -t), as numpy's
 * `rows[c] += t * x; rows[r] -= t * x` does: one rounded product, then one rounded sum or
 * difference, per entry. */
static void move_apart(double *rows, double *offsets, Py_ssize_t d, Py_ssize_t c, Py_ssize_t r, double t,
                       const double *x, int fit_intercept)
{
    double *towards = rows + c * d, *away = rows + r * d;
    for (Py_ssize_t j = 0; j < d; j++) {
        double moved = t * x[j];
        towards[j] = towards[j] + moved;
        away[j] = away[j] - moved;
    }
    if (fit_intercept) {
        offsets[c] = offsets[c] + t;
        offsets[r] = offsets[r] - t;
    }
}

/* Class indices: a contiguous buffer of `count` signed integers of the size of Py_ssize_t
 * (numpy's intp); floats of the same size are refused by their format. */
static int class_indices(PyObject *object, Py_buffer *buf, Py_ssize_t count)
{
    if (PyObject_GetBuffer(object, buf, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return 0;
    const char *format = buf->format == NULL ? "B" : buf->format;
    if (*format == '@' || *format == '=' || *format == '<' || *format == '>' || *format == '!')
        format++;
    int integral = (format[0] == 'l' || format[0] == 'q' || format[0] == 'n') && format[1] == '\0';
    if (!integral || buf->itemsize != (Py_ssize_t)sizeof(Py_ssize_t) || buf->len != count * buf->itemsize) {
        PyErr_Format(PyExc_ValueError, "y must hold %zd class indices of type intp, got %zd bytes of format '%s'",
                     count, buf->len, buf->format == NULL ? "B" : buf->format);
        return 0;
    }
    return 1;
}

/* Read-write weights of the expected size from an argument that may be None (no averaging). */
static int optional_weights(PyObject *object, Py_buffer *buf, Py_ssize_t count, const char *name)
{
    if (object == Py_None)
        return 1;
    if (PyObject_GetBuffer(object, buf, PyBUF_WRITABLE) < 0)
        return 0;
    return need(buf, count, name);
}

static PyObject *scan_multiclass(PyObject *self, PyObject *args)
{
    Py_buffer X = {0}, y = {0}, step = {0}, Wbuf = {0}, bbuf = {0}, Ubuf = {0}, betabuf = {0};
    PyObject *yobj, *Uobj, *betaobj;
    Py_ssize_t n, d, n_classes, start, visits;
    int fit_intercept;
    double max_z_norm;
    double *scores = NULL;
    PyObject *result = NULL;

    if (!PyArg_ParseTuple(args, "y*Oy*w*w*OOnnnnpnd", &X, &yobj, &step, &Wbuf, &bbuf, &Uobj, &betaobj, &visits,
                          &n, &d, &n_classes, &fit_intercept, &start, &max_z_norm))
        return NULL;
    if (!need(&X, n * d, "X") || !class_indices(yobj, &y, n) || !need(&step, n, "step") ||
        !need(&Wbuf, n_classes * d, "W") || !need(&bbuf, n_classes, "b"))
        goto done;
    if ((Uobj == Py_None) != (betaobj == Py_None)) {
        PyErr_SetString(PyExc_ValueError, "U and beta must both be given (to average) or both be None");
        goto done;
    }
    if (!optional_weights(Uobj, &Ubuf, n_classes * d, "U") || !optional_weights(betaobj, &betabuf, n_classes, "beta"))
        goto done;
    if (n_classes < 2) {
        PyErr_Format(PyExc_ValueError, "there must be at least 2 classes, got %zd", n_classes);
        goto done;
    }
    if (d + 1 >= MAX_TERMS) {
        PyErr_Format(PyExc_ValueError, "the bound needs fewer than %d weights per class, got %zd", MAX_TERMS, d + 1);
        goto done;
    }
    if (start < 0 || start > n) {
        PyErr_Format(PyExc_ValueError, "start must be in [0, %zd], got %zd", n, start);
        goto done;
    }
    if (visits < 0) {
        PyErr_Format(PyExc_ValueError, "visits must be at least 0, got %zd", visits);
        goto done;
    }
    scores = PyMem_Malloc((size_t)n_classes * sizeof(double));
    if (scores == NULL) {
        PyErr_NoMemory();
        goto done;
    }

    const double *xs = X.buf, *steps = step.buf;
    const Py_ssize_t *labels = y.buf;
    double *W = Wbuf.buf, *b = bbuf.buf, *U = Ubuf.buf, *beta = betabuf.buf;
    Py_ssize_t i = start, made = 0, bad_at = -1;
    int status = SCAN_DONE;

    Py_BEGIN_ALLOW_THREADS
    double slack = multiclass_slack(W, b, n_classes, d, max_z_norm);
    for (; i < n; i++) {
        const double *x = xs + i * d;
        Py_ssize_t c = labels[i];
        if (c < 0 || c >= n_classes) {
            bad_at = i;
            break;
        }
        for (Py_ssize_t k = 0; k < n_classes; k++)
            scores[k] = dot(x, W + k * d, d) + b[k];
        /* r: our first best class other than c; second: the best of the rest. */
        Py_ssize_t r = -1;
        double second = -INFINITY;
        for (Py_ssize_t k = 0; k < n_classes; k++) {
            if (k == c)
                continue;
            if (r < 0 || scores[k] > scores[r]) {
                if (r >= 0 && scores[r] > second)
                    second = scores[r];
                r = k;
            } else if (scores[k] > second) {
                second = scores[k];
            }
        }
        if (slack == 0.0) {
            if (scores[c] > scores[r])
                continue;
        } else {
            double margin = scores[c] - scores[r];
            if (margin > slack)
                continue;
            if (!(margin < -slack && (n_classes == 2 || scores[r] - second > slack))) {
                status = SCAN_UNDECIDED;
                break;
            }
        }
        /* numpy's update, and with averaging first its `moved = (visits + i) * s * x`
         * added to the sums (see perceptron_lib.multiclass). */
        double s = steps[i];
        if (U != NULL)
            move_apart(U, beta, d, c, r, (double)(visits + i) * s, x, fit_intercept);
        move_apart(W, b, d, c, r, s, x, fit_intercept);
        made++;
        slack = multiclass_slack(W, b, n_classes, d, max_z_norm);
    }
    Py_END_ALLOW_THREADS

    if (bad_at >= 0) {
        PyErr_Format(PyExc_ValueError, "y[%zd] is %zd, not a class index in [0, %zd)", bad_at, labels[bad_at],
                     n_classes);
        goto done;
    }
    result = Py_BuildValue("nin", i, status, made);
done:
    PyMem_Free(scores);
    PyBuffer_Release(&X);
    PyBuffer_Release(&y);
    PyBuffer_Release(&step);
    PyBuffer_Release(&Wbuf);
    PyBuffer_Release(&bbuf);
    PyBuffer_Release(&Ubuf);
    PyBuffer_Release(&betabuf);
    return result;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS,
     "scan(X, y, step, v, n, d, fit_intercept, start, max_z_norm, update)"
     " -> (index, status, mistakes made)\n\n"
     "Visit examples start, start+1, ... with the weights v = (w, b), updated in place.\n"
     "status 0: every example was visited (index = n); 1: the example at index is a proven\n"
     "mistake, not yet applied (only when update is false); 2: the example at index is too\n"
     "close to call and must be decided by the caller."},
    {"scan_multiclass", scan_multiclass, METH_VARARGS,
     "scan_multiclass(X, y, step, W, b, U, beta, visits, n, d, n_classes, fit_intercept, start, max_z_norm)"
     " -> (index, status, mistakes made)\n\n"
     "Visit examples start, start+1, ... of classes y (intp indices) with the class weights W\n"
     "and offsets b, making each mistake's update in place; with the averaging sums U and beta\n"
     "(None for none), example i is visit number visits + i.  status 0: every example was\n"
     "visited (index = n); 2: the example at index is too close to call and must be decided by\n"
     "the caller."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernel",
    "The perceptron's epoch loops, binary and multiclass, in C (see _kernel.c for their exactness proofs).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__kernel(void)
{
    return PyModule_Create(&module);
}
