/**
 * @file cost_model.h
 * @brief The alpha-beta model of the all-reduces of chapters 5, 8 and 9 (chapter 9).
 */
#ifndef DPS_COST_MODEL_H
#define DPS_COST_MODEL_H

/** A kind of link: seconds per step, and per byte in one direction. */
typedef struct Link {
    double alpha; /**< seconds a step costs, whatever its size */
    double beta;  /**< seconds a byte costs: the inverse of the bandwidth */
    double rate;  /**< a token bucket's bytes a second behind the wire, or 0: none */
} Link;

/** Hosts of ranks, and the links within a host and between hosts. */
typedef struct Machine {
    int hosts;    /**< H */
    int per_host; /**< L */
    int cards;    /**< C, a host's network cards, which its ranks share */
    Link within;  /**< between two ranks of one host */
    Link between; /**< one network card: a flow between hosts crosses one */
} Machine;
/** The all-reduces the model knows. */
typedef enum CostAlgo {
    COST_FLAT_RING,
    COST_HIERARCHICAL,
    COST_TREE,
    COST_ONE_SHOT,
    COST_TWO_SHOT,
    COST_NCCL_RING,
    N_COST_ALGOS
} CostAlgo;

/** What an all-reduce costs, as multiples of each link's alpha and of n times its beta. */
typedef struct CostTerms {
    double within_steps;  /**< x alpha within a host */
    double within_bytes;  /**< x n beta within a host */
    double between_steps; /**< x alpha on a host's link */
    double between_bytes; /**< x n beta on a host's link (or card) */
} CostTerms;
/** The terms of @p a on @p m (its links aside); 0 when it cannot run there. */
int cost_terms(CostAlgo a, const Machine *m, CostTerms *t);
/** Predicted seconds of an all-reduce of @p bytes with @p a on @p m; -1: it cannot run. */
double cost_predict(CostAlgo a, const Machine *m, double bytes);
/** Its name: "flat ring", "hierarchical", "tree", "one-shot", "two-shot", "NCCL's ring". */
const char *cost_name(CostAlgo a);
/**
 * The alpha and beta that fit @p n measured times @p t best, where time i is
 * @p steps[i] x alpha + @p bytes[i] x beta (the bytes already times their coefficient), in
 * the least squares of the relative errors. 0, or -1 when they cannot be fitted.
 */
int cost_fit(const double *steps, const double *bytes, const double *t, int n, Link *out);
/**
 * The rate that fits @p n times @p t best, where time i is @p over[i] / rate (the bytes
 * that cross the bucket; the model leaves its burst out, spent in a run's first calls), in
 * the least squares of the relative errors; 0 if none.
 */
double cost_fit_rate(const double *over, const double *t, int n);

/** One step's exchange of gradients as a codec of chapter 10 makes it. */
typedef struct CodecTraffic {
    int reduces;      /**< ring all-reduces a step: 1, or PowerSGD's 3 */
    double reduce[3]; /**< the bytes of each */
    double gathered;  /**< the bytes a ring all-gathers (top-k: every rank's pairs), or 0 */
    double work;      /**< seconds a rank spends coding per step */
} CodecTraffic;
/** Predicted seconds of one step's exchange with @p t on the flat ring of @p m. */
double codec_exchange(const Machine *m, const CodecTraffic *t);
/**
 * The bandwidth of the link between hosts, in bytes a second, below which @p t exchanges a
 * step faster than @p plain on @p m (its alpha kept, no bucket): 0 if at none, INFINITY
 * if at every one from a kilobyte a second to ten terabytes.
 */
double codec_break_even(const Machine *m, const CodecTraffic *t, const CodecTraffic *plain);

#endif
